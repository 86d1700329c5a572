import Foundation
import PostgresStore
import Store
import TestSupport
import Testing

/// Migrations, statistics, health and the change signal, on every backend.
@Suite struct StoreAdministrationConformanceTests {
    @Test(arguments: TestStore.names)
    func migrationsAreRecordedOnceAndANewerStoreIsRefused(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        let names = Schema.core.migrations.map(\.name)
        #expect(try store.appliedMigrations() == names)
        #expect(try store.migrate() == [])
        #expect(try store.first("SELECT count(*) FROM migrations", []) { $0.integer(0) } == Int64(names.count))
        #expect(try store.integrityCheck() == "ok")
        try store.ping()
        try store.run("INSERT INTO migrations (name, summary, applied_at) VALUES ('streaks.1', 'future', 0)", [])
        #expect { try store.migrate() } throws: {
            "\($0)".contains("migrations this engine does not know (streaks.1)")
                && "\($0)".contains("upgrade the engine")
        }
        #expect { try backend.connect() } throws: { "\($0)".contains("streaks.1") }
        #expect(try store.integrityCheck() == "streaks.1 is applied, but this engine does not know it")
    }

    @Test(arguments: TestStore.names)
    func statisticsCountRowsPerTable(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try store.ensureUser("u1", firstSeenAt: 1)
        try store.ensureUser("u2", firstSeenAt: 1)
        let statistics = try store.statistics()
        let rows = Dictionary(uniqueKeysWithValues: statistics.tables.map { ($0.name, $0.rows) })
        #expect(rows["users"] == 2 && rows["events"] == 0 && rows["migrations"] == Schema.core.migrations.count)
        #expect(statistics.tables.map(\.name) == ["migrations"] + Schema.core.tables && statistics.bytes > 0)
        #expect(statistics.migrations == Schema.core.migrations.map(\.name) && statistics.pending == [])
        #expect(!store.location.isEmpty)
    }

    @Test(arguments: TestStore.names)
    func theExternalVersionChangesWhenAnotherConnectionCommits(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let other = try backend.connect()
        let before = try backend.store.externalVersion()
        // Unchanged while nobody commits: provable on SQLite only. PostgreSQL's version follows
        // the server-wide snapshot, so other tests' commits on the shared server move it too (a
        // spurious change costs a view-cache refresh, never a stale read).
        if name == "sqlite" { #expect(try backend.store.externalVersion() == before) }
        try other.transaction { try other.ensureUser("u9", firstSeenAt: 1) }
        #expect(try backend.store.externalVersion() != before)
    }
}

/// Instances starting together on a new PostgreSQL database migrate it once.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresMigrationTests {
    @Test func concurrentMigrationsApplyEachMigrationOnce() throws {
        let url = try #require(TestStore.postgresURL)
        let schema = "migrate_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresStore(url: url, schema: .core, migrate: false)
        try admin.run("CREATE SCHEMA \(schema)", [])
        defer { _ = try? admin.run("DROP SCHEMA \(schema) CASCADE", []) }
        let location = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        final class Applied: @unchecked Sendable {  // each thread writes its own slot
            var names: [[String]] = Array(repeating: [], count: 4)
            let failures = LockedText()
        }
        let applied = Applied()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            do {
                applied.names[index] = try PostgresStore(url: location, schema: .core, migrate: false).migrate()
            } catch {
                applied.failures.append("\(index): \(error)\n")
            }
        }
        let names = Schema.core.migrations.map(\.name)
        #expect(applied.failures.text == "")
        #expect(applied.names.flatMap { $0 }.sorted() == names.sorted())
        let store = try PostgresStore(url: location, schema: .core)
        #expect(try store.appliedMigrations() == names)
    }
}
