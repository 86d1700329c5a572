import Foundation
import Store

/// Looking after a PostgreSQL store: its schema, counts and size, health and change signal.
extension PostgresStore: StoreAdministration, ChangeSignal {
    public func schemaVersion() throws -> Int {
        try database.connection.schemaVersion()
    }

    /// Row counts of the tables of the current schema (in the order they were created) and
    /// their size with indexes (`pg_total_relation_size`): the store's schema, not the whole
    /// database (which may hold other schemas and other applications).
    public func statistics() throws -> StoreStatistics {
        let names = try rows(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.oid
            """
        ) { $0.text(0) ?? "" }
        var tables: [(String, Int)] = []
        var bytes: Int64 = 0
        for name in names {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            tables.append((name, Int(try first("SELECT count(*) FROM \(quoted)", []) { $0.integer(0) } ?? 0)))
            bytes +=
                try first("SELECT pg_total_relation_size(CAST(? AS regclass))", [.text(quoted)]) { $0.integer(0) } ?? 0
        }
        return StoreStatistics(path: location, schemaVersion: try schemaVersion(), tables: tables, bytes: Int(bytes))
    }

    /// `ok`, or one line per problem: a schema newer than this engine knows, or a table of
    /// the schema missing.
    public func integrityCheck() throws -> String {
        var problems: [String] = []
        let version = try schemaVersion()
        let known = PostgresSchema.migrations.map(\.version).max() ?? 0
        if version > known { problems.append("schema version \(version) is newer than this engine knows (\(known))") }
        let present = Set(
            try rows(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            ) { $0.text(0) ?? "" })
        if version == known {
            for table in PostgresSchema.tables where !present.contains(table) {
                problems.append("table \(table) is missing")
            }
        }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }

    public func ping() throws {
        _ = try first("SELECT 1", []) { $0.integer(0) }
    }

    /// A number that changes whenever a write transaction commits or rolls back on the server
    /// (the server's snapshot of completed transactions moved), read outside any transaction
    /// of this connection. Commits through this connection change it too (telling them apart
    /// would need the server's help): a view kept until it changes is recomputed more often
    /// than needed, never kept past another instance's commit.
    public func externalVersion() throws -> Int64 {
        let snapshot = try first("SELECT pg_current_snapshot()::text", []) { $0.text(0) ?? "" } ?? ""
        if snapshot != externalSnapshot.text {
            externalSnapshot = (snapshot, externalSnapshot.version + 1)
        }
        return externalSnapshot.version
    }

    /// `LISTEN channel` on this connection; the socket to wait on.
    public func listen(_ channel: String) throws -> Int32? {
        try database.connection.listen(channel)
        return database.connection.socketDescriptor
    }

    public func drainNotifications() -> Int {
        database.connection.drainNotifications()
    }

    public var notificationDescriptor: Int32? { database.connection.socketDescriptor }
}
