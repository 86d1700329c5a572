import CSQLite
import Core

/// One SQLite connection, owned here and closed when this goes away.
///
/// Opened in WAL mode with a busy timeout and foreign keys on; statements prepared through
/// ``prepare(_:)`` are cached by their SQL. Not `Sendable`: use a connection from one thread
/// at a time (an owner such as the store serializes access).
public final class Connection {
    let handle: OpaquePointer
    /// The database file.
    public let path: String
    private var statements: [StatementKey: Statement] = [:]

    /// How a connection is opened.
    public struct Options: Sendable {
        /// How long to wait for another connection's lock before failing with SQLITE_BUSY.
        public var busyTimeoutMilliseconds: Int32 = 5000
        /// `NORMAL` with WAL survives a killed process; `FULL` also survives power loss.
        public var synchronous: String = "NORMAL"
        public var readOnly = false
        /// How long a commit that finds the write-ahead log past ``Connection/walRestartPages``
        /// waits for other connections to leave it (every writer waits meanwhile): long enough
        /// for another process's write transaction to end.
        public var walRestartWaitMilliseconds: Int32 = 1000
        /// Most memory for pages in this connection's cache, in KiB (taken as pages are read).
        /// SQLite's default, 2 MiB, holds fewer pages than a transaction of a few hundred events
        /// changes once a store holds some history: the rest are written to the log before the
        /// commit, then read back and written again.
        public var cacheKibibytes: Int32 = 16 << 10

        public init(
            busyTimeoutMilliseconds: Int32 = 5000, synchronous: String = "NORMAL", readOnly: Bool = false,
            walRestartWaitMilliseconds: Int32 = 1000, cacheKibibytes: Int32 = 16 << 10
        ) {
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.synchronous = synchronous
            self.readOnly = readOnly
            self.walRestartWaitMilliseconds = walRestartWaitMilliseconds
            self.cacheKibibytes = cacheKibibytes
        }
    }

    /// Opens (and creates, unless read-only) the database at `path`.
    public init(path: String, options: Options = .init()) throws(SQLiteError) {
        Self.configureLibrary
        self.path = path
        var handle: OpaquePointer?
        let flags =
            (options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: result, message: "\(message): \(path)")
        }
        self.handle = handle
        walCheckpoints = .allocate(capacity: 1)
        walCheckpoints.initialize(
            to: journey_wal_checkpoints(
                restart_pages: Self.walRestartPages, wait_ms: options.walRestartWaitMilliseconds,
                busy_timeout_ms: options.busyTimeoutMilliseconds, next_attempt: 0, restart_attempts: 0))
        sqlite3_extended_result_codes(handle, 1)
        journey_sqlite3_set_busy_wait(handle, options.busyTimeoutMilliseconds)
        _ = journey_sqlite3_keep_plans(handle)
        if !options.readOnly {
            try execute("PRAGMA journal_mode = WAL")
            journey_sqlite3_set_wal_checkpoints(handle, walCheckpoints)
        }
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA synchronous = \(options.synchronous)")
        try execute("PRAGMA cache_size = -\(options.cacheKibibytes)")
    }

    /// How many pages the write-ahead log may hold before a commit waits for its readers to
    /// leave it, so that it starts again from its beginning (16 MiB of 4 KiB pages).
    public static let walRestartPages: Int32 = 4000
    /// The state of this connection's checkpoints after commits (C's, for its WAL hook).
    private let walCheckpoints: UnsafeMutablePointer<journey_wal_checkpoints>
    /// How many times a commit waited for the readers to leave the log.
    var walRestartAttempts: Int { Int(walCheckpoints.pointee.restart_attempts) }

    /// Pages written to the log before their transaction's commit because the cache was full
    /// (SQLite's cache spills), since this connection opened.
    public var cacheSpills: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_SPILL, &current, &highest, 0)
        return Int(current)
    }

    /// Process-wide settings of the library, made once before the first connection opens
    /// (SQLite takes them only before it initializes): no memory statistics, whose global
    /// mutex every allocation took.
    private static let configureLibrary: Void = {
        _ = journey_sqlite3_disable_memory_statistics()
    }()

    deinit {
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
        walCheckpoints.deallocate()
    }

    /// Builds the error for `result`, with SQLite's current message.
    func error(_ result: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that return nothing (schema, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// The cached prepared statement for `sql`.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        let key = StatementKey(sql)
        if let statement = statements[key] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statements[key] = statement
        return statement
    }

    /// The virtual machine operations of every cached statement since it was prepared: the
    /// work SQLite did, counted (tests compare it before and after, instead of timing).
    public var virtualMachineSteps: Int { statements.values.reduce(0) { $0 + $1.virtualMachineSteps } }

    /// Runs `sql` with `values` bound.
    public func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        try prepare(sql).run(values)
    }

    /// The single integer a query returns (e.g. `SELECT count(*) …`).
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int64? {
        try prepare(sql).first(values) { $0.isNull(0) ? nil : $0.integer(0) } ?? nil
    }

    /// The rowid of the last inserted row.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`: the write lock is taken at once), and
    /// commits; rolls back when `body` throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside a savepoint: when it throws, only its own changes are rolled back.
    /// The savepoint statements are prepared once and reused (one per event on the ingest path).
    public func savepoint<T>(_ name: String = "journey", _ body: () throws -> T) throws -> T {
        try prepare("SAVEPOINT \(name)").run()
        do {
            let value = try body()
            try prepare("RELEASE \(name)").run()
            return value
        } catch {
            try? prepare("ROLLBACK TO \(name)").run()
            try? prepare("RELEASE \(name)").run()
            throw error
        }
    }
}
