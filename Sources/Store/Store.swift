import Core

/// What the engine needs from storage, as a backend provides it: transactions and savepoints,
/// the shared SQL (``SQLWriting``), and the few things only a backend knows (how writers of one
/// user wait for each other, how other connections are told of a change, how row ids are handed
/// out). SQLite is the embedded default; a PostgreSQL store serves several engine instances;
/// nothing above the backends knows which one it talks to.
///
/// The rows are written once, in the shared SQL, as extensions of this protocol and of
/// ``StoreReader``: the engine's own here (events, users and dogs, records, reminders,
/// analytics, rewards, the quarantine), each feature's in its module.
///
/// A store is used from one thread at a time; the engine serializes access.
public protocol Store: StoreReader, SQLWriting {
    /// Runs `body` in one write transaction: all of it is kept, or none of it.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` as a unit inside the current transaction: when it throws, only its own
    /// changes are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T
    /// Inside a write transaction: makes writers of any of `users` on other connections (other
    /// engine instances) wait until this transaction ends, so that what an event's consumers
    /// read of their user's state is still true when its effects are written. The locks are
    /// held before the transaction's next statement runs (a backend may send them with it, as
    /// PostgreSQL does). A store with one writer at a time (SQLite) has nothing to do.
    func serializeWriters(of users: [String]) throws
    /// Tells the store's other connections that listen on `channel` (see ``ChangeSignal``)
    /// that something they follow changed, once this transaction commits. A store whose
    /// processes only poll (SQLite) has nothing to do.
    func notify(_ channel: String) throws
    /// Runs an insert whose answer nothing waits for: a backend may send it with the next
    /// statement (one round trip for several), where its error is then thrown, inside the same
    /// transaction or unit. SQLite runs it at once.
    func runDeferred(_ sql: String, _ values: [SQLValue]) throws
    /// Runs `update`, then inserts a row of `table` (`columns`, `values`) when it changed no
    /// row, with no answer waited for: a backend may send both as one statement with the next
    /// one (PostgreSQL: the update in a `WITH`, the row inserted unless it returned one), where
    /// its error is then thrown; SQLite runs them at once. `update` numbers its placeholders
    /// (`?1`, `?2`…), one per value.
    func runDeferred(
        update: (sql: String, values: [SQLValue]), elseInsertInto table: String, columns: [String],
        _ values: [SQLValue]) throws
    /// Inserts one row of `table`, whose `id` column is its row id, with `sql`: its first
    /// placeholder is the id, bound here before `values`; returns the id. SQLite binds NULL and
    /// reads the id the insert assigned; PostgreSQL binds one taken ahead from the table's
    /// identity sequence and defers the insert (see ``runDeferred(_:_:)``).
    func insertRow(into table: String, _ sql: String, _ values: [SQLValue]) throws -> Int64
}

/// What consumers may read while they compute an event's effects (they never write: the
/// engine applies their effects); the rows are read in the shared SQL (``SQLReading``).
public protocol StoreReader: SQLReading {
    /// Values derived from rows that never change (emptied when a transaction rolls back).
    var derivedCache: DerivedCache { get }
    /// Reads kept for the rest of the write transaction (``TransactionReads``); nil keeps none.
    var transactionReads: TransactionReads? { get }
    /// A number that grows whenever something is stored about the dog: views derived from the
    /// dog's data can be kept until it changes. How row ids commit decides it, so each backend
    /// says how (SQLite: the dog's latest event's row id, 0 for none).
    func dataVersion(dog: String) throws -> Int64
}

extension StoreReader {
    public var transactionReads: TransactionReads? { nil }
}

extension Store {
    public func serializeWriters(of users: [String]) throws {}
    public func notify(_ channel: String) throws {}
    public func runDeferred(_ sql: String, _ values: [SQLValue]) throws { try run(sql, values) }
    public func runDeferred(
        update: (sql: String, values: [SQLValue]), elseInsertInto table: String, columns: [String],
        _ values: [SQLValue]
    ) throws {
        guard try run(update.sql, update.values) == 0 else { return }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try runDeferred("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
    }
}

/// A store failure that may not happen again when the same work is tried once more (a
/// deadlock between two instances' transactions, a serialization failure, a dropped
/// connection): the ingest path tries a batch again before refusing it.
public protocol TransientStoreFailure: Error {
    var isTransient: Bool { get }
}
