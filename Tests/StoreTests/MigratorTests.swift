import Foundation
import SQLiteStore
import Store
import StoreBackends
import TestSupport
import Testing

/// Migrations of several owners, on every backend: they run in one order (the core's, then
/// each list's in turn), each once; a list added later runs alone; a failing one keeps nothing;
/// an unusable list is refused before anything runs.
@Suite struct MigratorTests {
    /// A feature "walks" whose table references the core's `users`, and a feature "notes" whose
    /// table references the walks' (features may use the tables of those listed before them).
    static let walks = [
        Migration(
            "walks.1", "walks",
            sql: """
                CREATE TABLE walks (
                    id      INTEGER PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE
                );
                """),
        Migration("walks.2", "kilometres", sql: "ALTER TABLE walks ADD COLUMN km REAL;"),
    ]
    static let notes = [
        Migration(
            "notes.1", "notes on walks",
            sql: "CREATE TABLE walk_notes (walk INTEGER REFERENCES walks (id) ON DELETE CASCADE, text TEXT NOT NULL);")
    ]
    static let core = Schema.core.migrations.map(\.name)

    @Test(arguments: TestStore.names)
    func migrationsRunInTheSchemasOrderEachOnce(backend name: String) throws {
        let schema = Schema([Self.walks, Self.notes])
        let backend = try TestStore(
            name, schema: schema,
            before: { location in
                let store = try StoreLocation(location).open(schema: schema, migrate: false)
                #expect(try store.migrate() == Self.core + ["walks.1", "walks.2", "notes.1"])
                #expect(try store.migrate() == [], "once")
            })
        let store = try backend.connect(schema: schema)
        #expect(try store.migrate() == [])
        #expect(try store.appliedMigrations() == schema.migrations.map(\.name))
        #expect(try store.tableNames() == ["migrations"] + schema.tables)
        try store.ensureUser("u1", firstSeenAt: 1)
        try store.run("INSERT INTO walks (user_id, km) VALUES ('u1', 2.5)", [])
        #expect(try store.integrityCheck() == "ok")
    }

    /// A feature added to a store that has the others runs alone, wherever it is listed; so
    /// does a feature's new migration.
    @Test(arguments: TestStore.names)
    func aFeatureAddedLaterRunsAloneAfterTheRest(backend name: String) throws {
        let backend = try TestStore(name, schema: Schema([[Self.walks[0]]]))
        let cats = [Migration("cats.1", "cats", sql: "CREATE TABLE cats (name TEXT PRIMARY KEY);")]
        let later = try backend.connect(schema: Schema([cats, Self.walks]), migrate: false)
        #expect(try later.statistics().pending == ["cats.1", "walks.2"])
        #expect(try later.migrate() == ["cats.1", "walks.2"])
        #expect(try later.appliedMigrations() == Self.core + ["walks.1", "cats.1", "walks.2"])
        #expect(try later.statistics().pending == [])
    }

    @Test(arguments: TestStore.names)
    func aFailingMigrationIsNamedAndKeepsNothing(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let broken = Migration(
            "walks.1", "walks twice", sql: "CREATE TABLE walks (n INTEGER); CREATE TABLE walks (n INTEGER);")
        let store = try backend.connect(schema: Schema([[broken]]), migrate: false)
        #expect { try store.migrate() } throws: { "\($0)".contains("migration walks.1 (walks twice) failed") }
        #expect(try store.tableNames().contains("walks") == false)
        #expect(try store.appliedMigrations() == Self.core)
        let fixed = try backend.connect(schema: Schema([Self.walks]), migrate: false)
        #expect(try fixed.migrate() == ["walks.1", "walks.2"])
    }

    @Test func anUnusableListIsRefusedBeforeAnythingRuns() throws {
        let lists: [([Migration], String)] = [
            (Self.walks + [Self.walks[0]], "migration walks.1 is listed twice"),
            ([Migration("Walks.1", "", sql: "")], "migration `Walks.1` is not named owner.number (habits.1)"),
            ([Self.walks[1], Self.walks[0]], "migration walks.2 comes where walks.1 should"),
        ]
        for (list, problem) in lists {
            let schema = Schema([list])
            #expect(schema.problems.contains(problem), "\(schema.problems)")
            let file = TemporaryDatabaseFile()
            #expect(throws: MigrationError.self) { _ = try SQLiteStore(path: file.path, schema: schema) }
            let untouched = try SQLiteStore(path: file.path, schema: .core, migrate: false)
            #expect(try untouched.tableNames() == [], "nothing ran")
        }
        #expect(Schema([Self.walks, Self.notes]).problems == [])
    }
}
