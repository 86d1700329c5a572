/// A numbered schema change.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

extension Connection {
    /// The highest migration version applied (0 for a new database).
    public func schemaVersion() throws -> Int {
        try ensureMigrationTable()
        return Int(try scalar("SELECT coalesce(max(version), 0) FROM schema_migrations") ?? 0)
    }

    /// Applies, in order and each in its own transaction, the migrations not yet recorded in
    /// `schema_migrations`; returns the versions applied. A database newer than the code is
    /// refused rather than touched.
    @discardableResult
    public func migrate(_ migrations: [Migration], now: Double) throws -> [Int] {
        try ensureMigrationTable()
        let current = try schemaVersion()
        let known = migrations.map(\.version).max() ?? 0
        guard current <= known else {
            throw SQLiteError(
                code: 1,
                message:
                    "the database is at schema version \(current), newer than this engine knows (\(known)); upgrade the engine"
            )
        }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > current {
            try transaction {
                try execute(migration.sql)
                try run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(migration.version)), .text(migration.name), .real(now)])
            }
            applied.append(migration.version)
        }
        return applied
    }

    private func ensureMigrationTable() throws {
        try execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at REAL NOT NULL
            )
            """)
    }
}
