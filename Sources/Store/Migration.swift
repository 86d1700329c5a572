/// A change to the store's schema, named by its owner and its number in the owner's list
/// (`core.1`, `revisions.1`, `habits.3`): each store layer and each feature lists its own
/// (GRDB's `registerMigration("…")`), and a store records the names it applied.
public struct Migration: Sendable, Equatable {
    /// `owner.number`, as recorded in the store's `migrations` table.
    public var name: String
    /// What it changes, for people.
    public var summary: String
    /// Its statements in SQLite's dialect (PostgreSQL translates them: see
    /// ``StoreAdministration/dialect(_:)``).
    public var sql: String
    /// The version it was part of when every migration was in one numbered list (1–18): a
    /// store made then has it applied once that version is recorded in `schema_migrations`.
    public var numbered: Int?
    /// What PostgreSQL runs instead of `sql` translated, for a change only it needs (`sql` is
    /// then SQLite's, empty when SQLite has nothing to do).
    public var postgres: String?

    public init(_ name: String, _ summary: String, numbered: Int? = nil, sql: String, postgres: String? = nil) {
        self.name = name
        self.summary = summary
        self.numbered = numbered
        self.sql = sql
        self.postgres = postgres
    }

    /// Who owns it: the name before its last dot.
    public var owner: Substring { name[..<(name.lastIndex(of: ".") ?? name.endIndex)] }

    /// The tables it creates, in order.
    public var createdTables: [String] {
        sql.matches(of: #/CREATE TABLE (\w+)/#).map { String($0.output.1) }
    }
}

/// Every migration a store needs, in the order they run: the core's first, then each list in
/// the order given (the store layers', then each feature's in the order features are listed),
/// each in its own order. A migration may use the tables of the migrations before it (a
/// feature's rows reference `users` and `events`); a feature added later has its migrations
/// applied after everything the store has already.
public struct Schema: Sendable {
    /// In the order they run.
    public let migrations: [Migration]

    /// The core's migrations, then `lists` in order.
    public init(_ lists: [[Migration]]) {
        migrations = CoreSchema.migrations + lists.flatMap { $0 }
    }

    private init(migrations: [Migration]) {
        self.migrations = migrations
    }

    /// The engine's own tables only.
    public static let core = Schema([])

    /// The migrations `isIncluded` keeps, in order: the schema of an engine that did not have
    /// the others yet (tests build older stores with it).
    public func filter(_ isIncluded: (Migration) -> Bool) -> Schema {
        Schema(migrations: migrations.filter(isIncluded))
    }

    /// What makes the list unusable: a name that is not `owner.number`, a name listed twice,
    /// an owner whose numbers do not run 1, 2, 3… in its order. Empty when it is fine.
    public var problems: [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        var next: [Substring: Int] = [:]
        for migration in migrations {
            if !seen.insert(migration.name).inserted { problems.append("migration \(migration.name) is listed twice") }
            guard migration.name.wholeMatch(of: #/[a-z][a-z0-9_]*\.[1-9][0-9]*/#) != nil else {
                problems.append("migration `\(migration.name)` is not named owner.number (habits.1)")
                continue
            }
            let number = Int(migration.name[migration.name.index(after: migration.name.lastIndex(of: ".")!)...]) ?? 0
            let expected = next[migration.owner, default: 1]
            if number != expected {
                problems.append("migration \(migration.name) comes where \(migration.owner).\(expected) should")
            }
            next[migration.owner] = max(expected, number) + 1
        }
        return problems
    }

    /// The tables the migrations create, in order.
    public var tables: [String] { migrations.flatMap(\.createdTables) }

    /// The migration named `name`, if the schema has it.
    public func migration(_ name: String) -> Migration? {
        migrations.first { $0.name == name }
    }
}
