import Core

/// What the engine needs from storage. SQLite (``SQLiteStore``) is the embedded default; a
/// PostgreSQL store for several engine instances implements the same protocol, and nothing
/// above this module knows which one it talks to.
///
/// A store is used from one thread at a time; the engine serializes access.
public protocol Store: StoreReader {
    /// Runs `body` in one write transaction: all of it is kept, or none of it.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` as a unit inside the current transaction: when it throws, only its own
    /// changes are undone.
    func atomically<T>(_ body: () throws -> T) throws -> T

    /// Keeps an accepted event and its outcome; returns its row id.
    func insertEvent(_ event: StoredEvent) throws -> Int64
    /// How many events are kept.
    func eventCount() throws -> Int

    /// Records `user` the first time it is seen.
    func ensureUser(_ user: String, firstSeenAt: Double) throws
    func insertDog(_ dog: DogProfile) throws
    /// Keeps a dog's manifest (once: a second one for the same dog is an error).
    func insertManifest(_ manifest: StoredManifest) throws
    /// Keeps a catalog's content (JSON text) under its hash, once.
    func insertCatalogSnapshot(hash: String, text: String, at: Double) throws
    /// Whether content is kept under `hash`.
    func hasCatalogSnapshot(hash: String) throws -> Bool
    func insertRecord(_ record: ProfileRecord, event: Int64?) throws
    /// Marks a step of a block done; false when it already was.
    func completeBlockStep(dog: String, block: String, step: String, at: Double, event: Int64?) throws -> Bool
    /// Schedules a reminder; a pending one of the same user, dog and kind is kept once, due at
    /// the later of the two times.
    func scheduleReminder(_ reminder: Reminder, event: Int64?) throws
    func appendAnalytics(_ analytics: AnalyticsEvent, event: Int64?) throws
    /// Marks an onboarding step done (or skipped); false when it already was.
    func completeOnboardingStep(
        user: String, flow: String, step: String, skipped: Bool, at: Double, event: Int64?
    ) throws -> Bool
    /// Adds `delta` to a user's progress in a challenge; returns the new value.
    func addChallengeProgress(challenge: String, user: String, delta: Double, at: Double) throws -> Double
    /// Marks a challenge completed for a user; false when it already was.
    func completeChallenge(challenge: String, user: String, at: Double) throws -> Bool
    func grantReward(_ reward: Reward, event: Int64?) throws

    /// Counts and sizes, for `journey db stats`.
    func statistics() throws -> StoreStatistics

    // MARK: Experiments and onboarding

    /// Keeps (or replaces) a subject's assignment to an experiment.
    func saveAssignment(_ assignment: StoredAssignment) throws
    /// Forgets a subject's assignment (it is outside the experiment now).
    func removeAssignment(subject: String, experiment: String) throws
    /// Marks an assignment used; false when it already was (or there is none).
    func markAssignmentViewed(subject: String, experiment: String, at: Double) throws -> Bool
    /// Records that `user` started onboarding flow `flow` (a flow key), or updates the version
    /// seen when it already had.
    func startOnboardingFlow(user: String, flow: String, variant: String, version: String, at: Double) throws
    /// Records when a step was first shown (later calls keep the first time).
    func markOnboardingStepShown(user: String, flow: String, step: String, at: Double) throws
    /// Every user's progress in flow `flow`, by user id (for funnels).
    func onboardingHistories(flow: String) throws -> [String: OnboardingFlowProgress]
    /// Every flow key anyone started.
    func onboardingFlowKeys() throws -> [String]

    /// Applies a change to `user`'s habit trackers, categories or check-ins.
    func applyHabitChange(_ change: HabitChange, user: String, at: Double, event: Int64?) throws

    /// Makes `user` a participant of `challenge` (on `team`, for head-to-head); false when they
    /// already were. Counts them in the running totals and the feed.
    func joinChallenge(challenge: String, user: String, team: String?, at: Double, event: Int64?) throws -> Bool
    /// Marks a community challenge's group goal reached; false when it already was.
    func completeChallengeGroup(challenge: String, at: Double) throws -> Bool
    /// Records that the daily digest of `challenge` for `date` went out; false when it already had.
    func markChallengeDigest(challenge: String, date: String, at: Double) throws -> Bool

    // MARK: Service

    /// Pending reminders due at or before `before`, earliest first, at most `limit`.
    func dueReminders(before: Double, limit: Int) throws -> [Reminder]
    /// Marks pending reminders sent; returns the ids that were pending (the others are ignored).
    func markRemindersSent(_ ids: [Int64], at: Double) throws -> [Int64]
    /// Sets a rule aside (once per rule digest).
    func quarantine(_ record: QuarantineRecord) throws
    /// Every quarantine ever recorded, newest first.
    func quarantineRecords() throws -> [QuarantineRecord]
    /// Lifts the quarantine of `rule` (every digest); returns how many records went.
    func liftQuarantine(rule: String) throws -> Int
}

/// What consumers may read while they compute an event's effects (they never write: the
/// engine applies their effects).
public protocol StoreReader: AnyObject {
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
    /// A subject's kept assignment to an experiment.
    func assignment(subject: String, experiment: String) throws -> StoredAssignment?
    /// A user's progress in onboarding flow `flow` (a flow key), if they started it.
    func onboardingProgress(user: String, flow: String) throws -> OnboardingFlowProgress?
    /// A user's habit trackers (with their schedule history), oldest first.
    func habitTrackers(user: String) throws -> [HabitTracker]
    func habitCategories(user: String) throws -> [HabitCategory]
    /// A user's check-ins, by date.
    func habitCheckins(user: String) throws -> [HabitCheckin]
    /// The challenges `user` joined.
    func challengeParticipations(user: String) throws -> [ChallengeParticipation]
    func challengeParticipation(challenge: String, user: String) throws -> ChallengeParticipation?
    /// A challenge's running totals: everyone (team "") and each head-to-head side.
    func challengeTotals(challenge: String) throws -> [ChallengeTotal]
    /// Participants by value, highest first (of one side, or all), at most `limit`.
    func challengeRanking(challenge: String, team: String?, limit: Int) throws -> [ChallengeParticipation]
    /// The newest `limit` lines of a challenge's activity feed.
    func challengeFeed(challenge: String, limit: Int) throws -> [ChallengeFeedItem]
    /// A dog's latest events (newest first), at most `limit`.
    func events(dog: String, limit: Int) throws -> [StoredEvent]
    /// A number that changes whenever another connection (another process) commits; commits
    /// through this store do not change it.
    func externalVersion() throws -> Int64
    /// Values derived from rows that never change (emptied when a transaction rolls back).
    var derivedCache: DerivedCache { get }
    /// A number that grows whenever something is stored about the dog (its latest event's row
    /// id; 0 for none): views derived from the dog's data can be kept until it changes.
    func dataVersion(dog: String) throws -> Int64
}
