import Core

/// What the engine needs from storage: events, users and dogs, the engine's own effects
/// (records, reminders, analytics, rewards) and the service's quarantine. SQLite
/// (``SQLiteStore``) is the embedded default; a PostgreSQL store for several engine instances
/// implements the same protocol, and nothing above this module knows which one it talks to.
///
/// A feature keeps its own rows next to its module, through the shared SQL (``SQLWriting``)
/// this protocol refines: its store is an extension of ``Store`` and ``StoreReader`` there.
///
/// A store is used from one thread at a time; the engine serializes access.
public protocol Store: StoreReader, SQLWriting {
    /// Runs `body` in one write transaction: all of it is kept, or none of it.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` as a unit inside the current transaction: when it throws, only its own
    /// changes are undone.
    func atomically<T>(_ body: () throws -> T) throws -> T
    /// Inside a write transaction: makes writers of any of `users` on other connections (other
    /// engine instances) wait until this transaction ends, so that what an event's consumers
    /// read of their user's state is still true when its effects are written. A store with
    /// one writer at a time (SQLite) has nothing to do.
    func serializeWriters(of users: [String]) throws
    /// Tells the store's other connections that listen on `channel` (see ``ChangeSignal``)
    /// that something they follow changed, once this transaction commits. A store whose
    /// processes only poll (SQLite) has nothing to do.
    func notify(_ channel: String) throws

    /// Keeps an accepted event and its outcome; returns its row id.
    func insertEvent(_ event: StoredEvent) throws -> Int64
    /// How many events are kept.
    func eventCount() throws -> Int

    /// Records `user` the first time it is seen.
    func ensureUser(_ user: String, firstSeenAt: Double) throws
    func insertDog(_ dog: DogProfile) throws
    /// Keeps a dog's manifest (once: a second one for the same dog is an error).
    func insertManifest(_ manifest: StoredManifest) throws
    /// Keeps a catalog's content (JSON text) under its hash, once, dated by the earliest `at`.
    func insertCatalogSnapshot(hash: String, text: String, at: Double) throws
    /// Whether content is kept under `hash`.
    func hasCatalogSnapshot(hash: String) throws -> Bool
    func insertRecord(_ record: ProfileRecord, event: Int64?) throws
    /// Marks a step of a block done at `at` (or earlier than it was: events arrive out of
    /// order); false when it already was, at that time or before.
    func completeBlockStep(dog: String, block: String, step: String, at: Double, event: Int64?) throws -> Bool
    /// Schedules a reminder; a pending one of the same user, dog and kind is kept once, due at
    /// the later of the two times.
    func scheduleReminder(_ reminder: Reminder, event: Int64?) throws
    func appendAnalytics(_ analytics: AnalyticsEvent, event: Int64?) throws
    func grantReward(_ reward: Reward, event: Int64?) throws

    // MARK: Service

    /// Pending reminders due at or before `before`, earliest first, at most `limit`.
    func dueReminders(before: Double, limit: Int) throws -> [Reminder]
    /// Marks pending reminders sent; returns the ids that were pending (the others are ignored).
    func markRemindersSent(_ ids: [Int64], at: Double) throws -> [Int64]
    /// Sets a rule aside (once per rule digest).
    func quarantine(_ record: QuarantineRecord) throws
    /// Every quarantine ever recorded, newest first.
    func quarantineRecords() throws -> [QuarantineRecord]
    /// Lifts the quarantine of `rule` (every digest): for input `input` only, or every record
    /// (service-wide and per input) when nil; returns how many records went.
    func liftQuarantine(rule: String, input: String?) throws -> Int
}

/// What consumers may read while they compute an event's effects (they never write: the
/// engine applies their effects). Features read their own rows through ``SQLReading``.
public protocol StoreReader: SQLReading {
    /// The accepted event `eventID` of `user`, if there is one.
    func event(user: String, eventID: String) throws -> StoredEvent?
    func dog(_ id: String) throws -> DogProfile?
    /// A dog's records, oldest first; of one kind, or all.
    func records(dog: String, kind: String?) throws -> [ProfileRecord]
    /// A dog's manifest, if it has one.
    func manifest(dog: String) throws -> StoredManifest?
    /// The catalog content kept under `hash`.
    func catalogSnapshot(hash: String) throws -> JSON?
    /// The completed steps of a dog's blocks.
    func blockSteps(dog: String) throws -> [BlockStep]
    /// A dog's latest events (newest first), at most `limit`.
    func events(dog: String, limit: Int) throws -> [StoredEvent]
    /// Values derived from rows that never change (emptied when a transaction rolls back).
    var derivedCache: DerivedCache { get }
    /// A number that grows whenever something is stored about the dog (its latest event's row
    /// id; 0 for none): views derived from the dog's data can be kept until it changes.
    func dataVersion(dog: String) throws -> Int64
}

extension Store {
    public func serializeWriters(of users: [String]) throws {}
    public func notify(_ channel: String) throws {}
}

/// A store failure that may not happen again when the same work is tried once more (a
/// deadlock between two instances' transactions, a serialization failure, a dropped
/// connection): the ingest path tries a batch again before refusing it.
public protocol TransientStoreFailure: Error {
    var isTransient: Bool { get }
}
