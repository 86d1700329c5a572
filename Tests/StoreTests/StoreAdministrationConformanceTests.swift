import Foundation
import PostgresStore
import SQLiteStore
import Store
import TestSupport
import Testing

/// Migrations, statistics, health and the change signal, on every backend.
@Suite struct StoreAdministrationConformanceTests {
    @Test(arguments: TestStore.names)
    func migrationsAreRecordedOnceAndANewerDatabaseIsRefused(backend name: String) throws {
        let backend = try TestStore(name)
        let store = backend.store
        #expect(try store.schemaVersion() == SQLiteStore.latestSchemaVersion)
        #expect(try store.migrate() == [])
        #expect(
            try store.first("SELECT count(*) FROM schema_migrations", []) { $0.integer(0) }
                == Int64(SQLiteStore.latestSchemaVersion))
        #expect(try store.integrityCheck() == "ok")
        try store.ping()
        try store.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)", [])
        #expect { try store.migrate() } throws: { "\($0)".contains("newer than this engine knows") }
        if name == "postgres" {  // SQLite's check is of the file's structure only
            #expect(try store.integrityCheck() != "ok")
        }
    }

    @Test(arguments: TestStore.names)
    func statisticsCountRowsPerTable(backend name: String) throws {
        let backend = try TestStore(name)
        let store = backend.store
        try store.ensureUser("u1", firstSeenAt: 1)
        try store.ensureUser("u2", firstSeenAt: 1)
        let statistics = try store.statistics()
        let rows = Dictionary(uniqueKeysWithValues: statistics.tables.map { ($0.name, $0.rows) })
        #expect(rows["users"] == 2 && rows["events"] == 0 && rows["schema_migrations"] != nil)
        #expect(statistics.tables.count >= 25 && statistics.bytes > 0)
        #expect(statistics.schemaVersion == SQLiteStore.latestSchemaVersion)
        #expect(!store.location.isEmpty)
    }

    @Test(arguments: TestStore.names)
    func theExternalVersionChangesWhenAnotherConnectionCommits(backend name: String) throws {
        let backend = try TestStore(name)
        let other = try backend.connect()
        let before = try backend.store.externalVersion()
        #expect(try backend.store.externalVersion() == before)
        try other.transaction { try other.ensureUser("u9", firstSeenAt: 1) }
        #expect(try backend.store.externalVersion() != before)
    }
}

/// Instances starting together on a new PostgreSQL database migrate it once.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresMigrationTests {
    @Test func concurrentMigrationsApplyEachVersionOnce() throws {
        let url = try #require(TestStore.postgresURL)
        let schema = "migrate_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresStore(url: url, migrate: false)
        try admin.run("CREATE SCHEMA \(schema)", [])
        defer { _ = try? admin.run("DROP SCHEMA \(schema) CASCADE", []) }
        let location = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        final class Applied: @unchecked Sendable {  // each thread writes its own slot
            var versions: [[Int]] = Array(repeating: [], count: 4)
            let failures = LockedText()
        }
        let applied = Applied()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            do {
                applied.versions[index] = try PostgresStore(url: location, migrate: false).migrate()
            } catch {
                applied.failures.append("\(index): \(error)\n")
            }
        }
        #expect(applied.failures.text == "")
        #expect(applied.versions.flatMap { $0 }.sorted() == Array(1...SQLiteStore.latestSchemaVersion))
        let store = try PostgresStore(url: location)
        #expect(try store.schemaVersion() == SQLiteStore.latestSchemaVersion)
        #expect(
            try store.first("SELECT count(*) FROM schema_migrations", []) { $0.integer(0) }
                == Int64(SQLiteStore.latestSchemaVersion))
    }
}
