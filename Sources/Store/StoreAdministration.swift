/// Looking after a store, apart from what the engine reads and writes through it: its schema,
/// its size and its health (`journey db`, the service's readiness). A backend provides the
/// primitives; migrating, statistics and the integrity check are written once on top of them
/// (``migrate(now:)``, ``statistics()``, ``integrityCheck()``).
public protocol StoreAdministration: Store {
    /// Where the store is, as `--db` named it (a file path for SQLite).
    var location: String { get }
    /// The migrations the store is brought up to date with.
    var schema: Schema { get }
    /// Runs schema statements (several, separated by `;`) that take no values, in the
    /// backend's dialect.
    func execute(_ script: String) throws
    /// A migration's `sql` (SQLite's dialect) as this backend speaks it.
    func dialect(_ sql: String) -> String
    /// What this backend runs for `migration`: its `sql` in the backend's dialect, or what it
    /// says this backend runs instead (``Migration/postgres``).
    func script(of migration: Migration) -> String
    /// Inside a transaction: waits until no other connection is migrating the store, and makes
    /// them wait until this transaction ends (SQLite's write transaction does it already).
    func lockMigrations() throws
    /// The store's tables, in the order they were created.
    func tableNames() throws -> [String]
    /// The bytes the store takes (the file and its WAL; a PostgreSQL schema's tables and indexes).
    func byteCount() throws -> Int
    /// What the backend finds wrong with the stored data's structure; empty when nothing.
    func storageProblems() throws -> [String]
    /// Returns when the store answers a trivial query (readiness); throws otherwise.
    func ping() throws
}

extension StoreAdministration {
    public func dialect(_ sql: String) -> String { sql }
    public func script(of migration: Migration) -> String { dialect(migration.sql) }
    public func lockMigrations() throws {}
}

/// "Something was committed elsewhere": another connection (another process, another
/// instance) wrote to the store since a number was read. Views derived from stored data are
/// kept until it changes.
public protocol ChangeSignal: AnyObject {
    /// A number that changes whenever another connection commits; commits through this
    /// connection do not change it. It may change with no change to this store (PostgreSQL:
    /// any commit on the server moves its snapshot), never the other way round.
    func externalVersion() throws -> Int64
    /// Starts listening on `channel` for ``Store/notify(_:)`` from other connections; the
    /// descriptor to wait on, or nil where there is nothing to wait on (SQLite: poll instead).
    func listen(_ channel: String) throws -> Int32?
    /// How many notifications arrived since the last call (without waiting); 0 without any.
    func drainNotifications() -> Int
    /// The descriptor to wait on for notifications now (it changes when a connection is
    /// opened again), or nil.
    var notificationDescriptor: Int32? { get }
}

extension ChangeSignal {
    public func listen(_ channel: String) throws -> Int32? { nil }
    public func drainNotifications() -> Int { 0 }
    public var notificationDescriptor: Int32? { nil }
}

/// A store as the CLI and the service open it: what the engine reads and writes, its
/// administration and its change signal.
public typealias StoreConnection = StoreAdministration & ChangeSignal

/// What `journey db stats` shows.
public struct StoreStatistics: Sendable {
    public var path: String
    /// The migrations applied, by name, in the order they were (those a store made when they
    /// were numbered has applied, but not recorded by name yet, last).
    public var migrations: [String]
    /// The schema's migrations not applied yet.
    public var pending: [String]
    /// Row counts by table, in the order they were created.
    public var tables: [(name: String, rows: Int)]
    /// Bytes the store takes (see ``StoreAdministration/byteCount()``).
    public var bytes: Int
}

extension StoreAdministration {
    /// Counts and sizes, for `journey db stats`.
    public func statistics() throws -> StoreStatistics {
        var tables: [(String, Int)] = []
        for name in try tableNames() {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            tables.append((name, Int(try first("SELECT count(*) FROM \(quoted)", []) { $0.integer(0) } ?? 0)))
        }
        let state = try migrationState()
        return StoreStatistics(
            path: location, migrations: state.applied + state.numberedOnly(in: schema).map(\.name),
            pending: state.pending(in: schema).map(\.name),
            tables: tables, bytes: try byteCount())
    }

    /// `ok`, or one line per problem: what the backend finds wrong with its storage, migrations
    /// this engine does not know (a newer engine's), and, once every migration is applied, a
    /// table of the schema missing.
    public func integrityCheck() throws -> String {
        var problems = try storageProblems()
        let state = try migrationState()
        problems += state.unknown(in: schema).map { "\($0) is applied, but this engine does not know it" }
        if state.pending(in: schema).isEmpty {
            let present = Set(try tableNames())
            for table in schema.tables where !present.contains(table) { problems.append("table \(table) is missing") }
        }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }
}
