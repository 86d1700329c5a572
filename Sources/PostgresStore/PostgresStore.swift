import Core
import Foundation
import Postgres
import Store

/// The store on a PostgreSQL server, for several engine instances sharing one database: the
/// same tables as on SQLite (the migrations translated, ``PostgresDialect``), written and read in
/// the shared SQL. What it adds: writers of one user wait for each other (advisory locks),
/// notifications, event row ids taken ahead and inserts sent in one round trip.
///
/// Not `Sendable`: it owns one connection. One owner uses it at a time; each thread or
/// instance opens its own.
public final class PostgresStore: Store {
    public let database: PostgresDatabase
    /// The URL it was opened with, without any password.
    public let location: String
    public let schema: Schema
    public let derivedCache = DerivedCache()
    public let reads = TransactionReads()
    public var transactionReads: TransactionReads? { reads }
    /// The server's snapshot when ``externalVersion()`` last read it, and the number given.
    var externalSnapshot: (text: String, version: Int64) = ("", 0)
    /// Row ids taken from each table's sequence and not used yet (the next one last).
    var rowIDs: [String: [Int64]] = [:]
    /// The columns of each event insert's SQL (``insertedColumns(_:table:)``), read once.
    private var eventColumns: [String: [String]?] = [:]
    /// The statements of ``runDeferred(update:elseInsertInto:columns:_:)``, made once each.
    private var updateElseInsertSQL: [String: String] = [:]
    /// Whether events are written by COPY (``insertRow(into:_:_:)``): the foreign keys to them
    /// are deferrable, as in a store made since they are (``PostgresDialect``).
    public private(set) var copiesEvents = false

    /// Connects to `url` (`postgresql://user@host:port/database`; `options=-csearch_path%3D…`
    /// picks a schema) and brings the store up to `schema` unless `migrate` is false.
    public init(url: String, schema: Schema, migrate: Bool = true) throws {
        location = StoreLocation.withoutPassword(url)
        self.schema = schema
        do {
            database = try PostgresDatabase(url: url)
        } catch let error as PostgresError {
            throw PostgresError(sqlState: error.sqlState, message: "\(location): \(error.message)")
        }
        try database.connection.setUpSession("SET client_min_messages = warning")
        if migrate { try self.migrate() }
        try useCopyForEvents()
    }

    /// Writes events by COPY when every foreign key to them is deferrable (each transaction
    /// defers them to its commit, when the COPY has been sent); a store whose keys are not
    /// (made before they were) keeps inserting them a row each.
    private func useCopyForEvents() throws {
        let found = try first(
            """
            SELECT count(*) FILTER (WHERE NOT condeferrable), to_regclass('events') IS NOT NULL FROM pg_constraint
            WHERE contype = 'f' AND confrelid = coalesce(to_regclass('events'), 0)
            """, []
        ) { (immediate: $0.integer(0), hasEvents: $0.integer(1) == 1) }
        guard let found, found.hasEvents, found.immediate == 0 else { return }
        copiesEvents = true
        database.connection.transactionStart = ["BEGIN", "SET CONSTRAINTS ALL DEFERRED"]
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        reads.begin()
        defer { reads.end() }
        do {
            return try database.connection.transaction(body)
        } catch {
            derivedCache.removeAll()
            throw error
        }
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        do {
            return try database.connection.savepoint("event", body)
        } catch {
            derivedCache.removeAll()
            reads.forget()
            throw error
        }
    }

    /// Takes a transaction-scoped advisory lock per user, in one global order (by key) so
    /// that two instances' batches cannot wait for each other; released at commit or rollback.
    /// Queued, not waited for: the server takes the locks before it runs the statements sent
    /// after them in the same pipeline (the transaction's first reads), and a lock that
    /// deadlocks fails there.
    public func serializeWriters(of users: [String]) throws {
        guard !users.isEmpty else { return }
        let keys = Set(users.map(Self.writerLockKey)).sorted()
        try database.connection.runDeferred(
            "SELECT count(pg_advisory_xact_lock(\(Self.writerLockSpace), k)) FROM unnest(CAST(? AS integer[])) AS k",
            [.text("{" + keys.map(String.init).joined(separator: ",") + "}")])
    }

    /// `pg_notify`: delivered to the listeners when the transaction commits (at once outside one).
    public func notify(_ channel: String) throws {
        _ = try first("SELECT pg_notify(?, '')", [.text(channel)]) { _ in true }
    }

    /// The first key of the users' advisory locks (two-key locks never meet the migrations'
    /// one-key lock).
    static let writerLockSpace: Int32 = 0x4A52
    /// A user's lock key: 32 bits of FNV-1a of the id (two users sharing one only wait more).
    static func writerLockKey(_ user: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in user.utf8 {
            hash ^= UInt32(byte)
            hash &*= 16_777_619
        }
        return Int32(bitPattern: hash)
    }

    // MARK: Shared SQL

    public func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        reads.note(sql, values)
        try database.query(sql, values, body)
    }

    public func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T? {
        reads.note(sql, values)
        return try database.first(sql, values, row)
    }

    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        reads.note(sql, values)
        return try database.run(sql, values)
    }

    /// Sends the insert with the next statement's round trip (see
    /// ``PostgresConnection/runDeferred(_:_:)``): its error is thrown there, inside the same
    /// transaction or unit.
    public func runDeferred(_ sql: String, _ values: [SQLValue]) throws {
        reads.note(sql, values)
        try database.connection.runDeferred(sql, values.map(\.postgres))
    }

    /// One statement, queued like ``runDeferred(_:_:)``: the update in a `WITH` that returns a
    /// row for each it changed, and the row inserted unless it returned any (the writer locks
    /// keep other instances from the rows meanwhile, ``serializeWriters(of:)``).
    public func runDeferred(
        update: (sql: String, values: [SQLValue]), elseInsertInto table: String, columns: [String],
        _ values: [SQLValue]
    ) throws {
        let key = update.sql + "\u{1}" + table + "\u{1}" + columns.joined(separator: ",")
        let sql: String
        if let known = updateElseInsertSQL[key] {
            sql = known
        } else {
            let placeholders = (1...columns.count).map { "?\(update.values.count + $0)" }.joined(separator: ", ")
            sql = """
                WITH changed AS (\(update.sql) RETURNING 1) INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                SELECT \(placeholders) WHERE NOT EXISTS (SELECT 1 FROM changed)
                """
            if updateElseInsertSQL.count > 100 { updateElseInsertSQL.removeAll() }
            updateElseInsertSQL[key] = sql
        }
        reads.note(update.sql, update.values)
        reads.note("INSERT INTO \(table)", values)  // any row of the table
        try database.connection.runDeferred(sql, (update.values + values).map(\.postgres))
    }

    /// Binds a row id taken ahead (``nextRowID(of:)``) and defers the insert; an event's
    /// row goes with the transaction's other queued events in a few multi-row statements
    /// (``PostgresConnection/insertDeferred(into:columns:_:)``, ``copiesEvents``), in the
    /// next pipeline that names events, or with the commit.
    public func insertRow(into table: String, _ sql: String, _ values: [SQLValue]) throws -> Int64 {
        let id = try nextRowID(of: table)
        let row = [.integer(id)] + values
        reads.note(sql, row)
        if copiesEvents, table == "events", database.connection.isInTransaction,
            let columns = columns(ofEventInsert: sql), columns.count == row.count
        {
            try database.connection.insertDeferred(into: table, columns: columns, row.map(\.postgres))
        } else {
            try runDeferred(sql, row)
        }
        return id
    }

    private func columns(ofEventInsert sql: String) -> [String]? {
        if let known = eventColumns[sql] { return known }
        let columns = Self.insertedColumns(sql, table: "events")
        if eventColumns.count > 100 { eventColumns.removeAll() }
        eventColumns[sql] = columns
        return columns
    }

    /// The columns of `INSERT INTO table (a, b) VALUES (?, ?)` (placeholders only), else nil.
    static func insertedColumns(_ sql: String, table: String) -> [String]? {
        guard let insert = InsertStatement.plain(sql), insert.table == table else { return nil }
        return insert.columns
    }

    /// The next row id of `table`: handed out from a block taken from its identity's sequence
    /// (a round trip per 500 rows, a batch of the ingest's, instead of `RETURNING id` for each).
    /// The sequence is found once per block (`OFFSET 0` keeps the planner from finding it again
    /// for every row, which cost the server more than the 500 `nextval`s).
    func nextRowID(of table: String) throws -> Int64 {
        if rowIDs[table, default: []].isEmpty {
            rowIDs[table] = try rows(
                "SELECT nextval(s.sequence) FROM (SELECT CAST(pg_get_serial_sequence(?, 'id') AS regclass) OFFSET 0)"
                    + " AS s (sequence), generate_series(1, 500)", [.text(table)]
            ) { $0.integer(0) }.reversed()
        }
        return rowIDs[table]!.removeLast()
    }

    /// The dog's latest event row id plus its number of events (0 for none). Row ids are
    /// handed out before commit, so on a shared server an event with a smaller id can commit
    /// after a larger one: the count makes every insert change the number all the same.
    public func dataVersion(dog: String) throws -> Int64 {
        try first("SELECT coalesce(max(id), 0) + count(*) FROM events WHERE dog_id = ?", [.text(dog)]) {
            $0.integer(0)
        } ?? 0
    }
}

extension PostgresError: TransientStoreFailure {}
