import Store

/// Looking after a PostgreSQL store: its schema, its size, its health and its change signal.
extension PostgresStore: StoreAdministration, ChangeSignal {
    public func execute(_ script: String) throws {
        reads.forget()
        try database.connection.execute(script)
    }

    public func dialect(_ sql: String) -> String {
        PostgresDialect.translate(sql)
    }

    public func script(of migration: Migration) -> String {
        migration.postgres ?? dialect(migration.sql)
    }

    /// A transaction-scoped advisory lock: instances starting together migrate one at a time.
    public func lockMigrations() throws {
        try database.connection.execute("SELECT pg_advisory_xact_lock(\(PostgresDialect.migrationLock))")
    }

    /// The tables of the current schema (the first of the search path), in the order they were
    /// created: the store's schema, not the whole database (which may hold other schemas and
    /// other applications).
    public func tableNames() throws -> [String] {
        try rows(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.oid
            """
        ) { $0.text(0) ?? "" }
    }

    /// The size of the schema's tables with their indexes (`pg_total_relation_size`).
    public func byteCount() throws -> Int {
        var bytes: Int64 = 0
        for name in try tableNames() {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            bytes +=
                try first("SELECT pg_total_relation_size(CAST(? AS regclass))", [.text(quoted)]) { $0.integer(0) } ?? 0
        }
        return Int(bytes)
    }

    /// The server keeps its own storage sound: nothing to add to the schema's checks.
    public func storageProblems() throws -> [String] { [] }

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
