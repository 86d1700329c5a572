import Postgres
import PostgresStore
import Store
import TestSupport
import Testing

/// Inserts nothing reads back go later, several in one round trip: within a transaction
/// they are sent before the next other statement, the end of a unit or the commit, and their
/// errors are thrown there, so that a failing one undoes its transaction or only its unit.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresPipelineTests {
    static func count(_ store: any StoreConnection) throws -> Int64 {
        try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } ?? -1
    }

    @Test func queuedInsertsAreSentBeforeTheNextQuery() throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        var seen: Int64 = 0
        try backend.store.transaction {
            for n in 0..<3 {
                try connection.runDeferred(
                    "INSERT INTO users (user_id, first_seen_at) VALUES (?, ?)", [.text("u\(n)"), .real(1)])
            }
            seen = try Self.count(backend.store)
        }
        #expect(seen == 3, "a query sees what was queued before it")
        #expect(try Self.count(try backend.connect()) == 3)
    }

    @Test func aQueuedInsertThatFailsUndoesItsTransaction() throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        #expect {
            try backend.store.transaction {
                try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('a', 1)", [])
                try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('a', 2)", [])
            }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505"
        }
        #expect(try Self.count(backend.store) == 0)
        try backend.store.transaction { try backend.store.ensureUser("b", firstSeenAt: 3) }
        #expect(try Self.count(backend.store) == 1, "the connection works on after the failed pipeline")
    }

    @Test func aQueuedInsertThatFailsUndoesOnlyItsUnit() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        let connection = try #require(store as? PostgresStore).database.connection
        var unitFailed = false
        try store.transaction {
            try store.savepoint {
                try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('kept', 1)", [])
            }
            do {
                try store.savepoint {
                    try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('gone', 1)", [])
                    try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('kept', 2)", [])
                }
            } catch {
                unitFailed = (error as? PostgresError)?.sqlState == "23505"
            }
        }
        #expect(unitFailed)
        #expect(try store.rows("SELECT user_id FROM users ORDER BY user_id", []) { $0.text(0) ?? "" } == ["kept"])
    }

    @Test func outsideATransactionAnInsertRunsAtOnce() throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        try connection.runDeferred("INSERT INTO users (user_id, first_seen_at) VALUES ('now', 1)", [])
        #expect(try Self.count(try backend.connect()) == 1)
    }
}
