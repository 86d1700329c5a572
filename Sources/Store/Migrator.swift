import Foundation

/// Bringing a store's schema up to date, on every backend: the migrations of ``Schema`` not
/// recorded in the store's `migrations` table run in order, each in its own transaction with
/// its record, under the backend's migration lock (instances starting together apply each
/// once).
///
/// A store made when the migrations were one numbered list (`schema_migrations`, versions
/// 1–18) is taken as it is: a migration whose ``Migration/numbered`` version is recorded there
/// is recorded by name without running; a version-19 row then tells engines of that time that
/// the store is newer than they know.
extension StoreAdministration {
    /// Applies the migrations not applied yet; returns the names of those run, in order.
    /// - Throws: ``MigrationError`` for a schema whose list is unusable, or a store with
    ///   migrations this engine does not know (a newer engine's): it is refused rather than
    ///   touched. A migration that fails is named, and nothing of it is kept.
    @discardableResult
    public func migrate(now: Double = Date().timeIntervalSince1970) throws -> [String] {
        if let problem = schema.problems.first { throw MigrationError(location: location, problem: problem) }
        var state = try migrationState()
        try refuseUnknown(state)
        guard state.needsWork(for: schema) else { return [] }
        try transaction {
            try lockMigrations()
            try execute(dialect(MigrationState.table))
            if try tableNames().contains(MigrationState.numberedTable) {
                try run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?) ON CONFLICT (version) DO NOTHING",
                    [.integer(Int64(MigrationState.namedSince)), .text(MigrationState.namedSinceNote), .real(now)])
            }
        }
        var ran: [String] = []
        for migration in schema.migrations {
            let done: Bool = try transaction {
                try lockMigrations()
                state = try migrationState()
                try refuseUnknown(state)
                if state.applied.contains(migration.name) { return false }
                if let version = migration.numbered, let at = state.numbered[version] {
                    try record(migration, at: at)
                    return false
                }
                do {
                    try execute(script(of: migration))
                } catch {
                    throw MigrationError(
                        location: location,
                        problem: "migration \(migration.name) (\(migration.summary)) failed: \(error)")
                }
                try record(migration, at: now)
                return true
            }
            if done { ran.append(migration.name) }
        }
        return ran
    }

    /// The names of the migrations applied, in the order they were.
    public func appliedMigrations() throws -> [String] {
        try migrationState().applied
    }

    /// What the store records of its migrations (nothing for a new store).
    func migrationState() throws -> MigrationState {
        let tables = Set(try tableNames())
        var state = MigrationState()
        if tables.contains(MigrationState.namedTable) {
            state.applied = try rows("SELECT name FROM migrations ORDER BY id", []) { $0.text(0) ?? "" }
        }
        if tables.contains(MigrationState.numberedTable) {
            try query("SELECT version, applied_at FROM schema_migrations", []) { row in
                state.numbered[Int(row.integer(0))] = row.real(1)
            }
        }
        return state
    }

    private func refuseUnknown(_ state: MigrationState) throws {
        let unknown = state.unknown(in: schema)
        guard !unknown.isEmpty else { return }
        throw MigrationError(
            location: location,
            problem:
                "it has migrations this engine does not know (\(unknown.joined(separator: ", "))): a newer engine migrated it; upgrade the engine"
        )
    }

    private func record(_ migration: Migration, at: Double) throws {
        try run(
            "INSERT INTO migrations (name, summary, applied_at) VALUES (?, ?, ?)",
            [.text(migration.name), .text(migration.summary), .real(at)])
    }
}

/// What a store records of its migrations.
struct MigrationState {
    /// The names in the `migrations` table, in the order they were applied.
    var applied: [String] = []
    /// The versions in `schema_migrations` (stores made when migrations were numbered), with
    /// when each was applied.
    var numbered: [Int: Double] = [:]

    /// The table of applied migrations, by name (SQLite's dialect).
    static let table = """
        CREATE TABLE IF NOT EXISTS migrations (
            id         INTEGER PRIMARY KEY,
            name       TEXT NOT NULL UNIQUE,
            summary    TEXT NOT NULL,
            applied_at REAL NOT NULL
        )
        """
    static let namedTable = "migrations"
    static let numberedTable = "schema_migrations"
    /// The last version of the numbered list, and the one that marks a store migrated by name.
    static let lastNumbered = 18
    static let namedSince = 19
    static let namedSinceNote = "migrations are named since this version: see the table migrations"

    /// The schema's migrations neither applied nor covered by a numbered version recorded.
    func pending(in schema: Schema) -> [Migration] {
        let applied = Set(self.applied)
        return schema.migrations.filter { migration in
            !applied.contains(migration.name) && !(migration.numbered.map { numbered[$0] != nil } ?? false)
        }
    }

    /// The schema's migrations applied as part of a numbered version, not recorded by name yet.
    func numberedOnly(in schema: Schema) -> [Migration] {
        let applied = Set(self.applied)
        return schema.migrations.filter { migration in
            !applied.contains(migration.name) && migration.numbered.map { numbered[$0] != nil } == true
        }
    }

    /// Whether migrating has anything to do: a migration to run, or one to record by name.
    func needsWork(for schema: Schema) -> Bool {
        let applied = Set(self.applied)
        return schema.migrations.contains { !applied.contains($0.name) }
    }

    /// What is applied that `schema` does not have: names it lacks, and numbered versions past
    /// the numbered list (other than the one marking a store migrated by name).
    func unknown(in schema: Schema) -> [String] {
        let known = Set(schema.migrations.map(\.name))
        return applied.filter { !known.contains($0) }
            + numbered.keys.sorted().filter { $0 > Self.namedSince }.map { "schema_migrations version \($0)" }
    }
}

/// A store that cannot be migrated: where, and why.
public struct MigrationError: Error, CustomStringConvertible {
    public var location: String
    public var problem: String
    public var description: String { "the store \(location) cannot be migrated: \(problem)" }
}
