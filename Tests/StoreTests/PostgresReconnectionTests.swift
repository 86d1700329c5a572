import Postgres
import PostgresStore
import Store
import TestSupport
import Testing

/// A PostgreSQL server that restarts drops every connection: the statement that meets the
/// broken connection fails with a connection error (a transient failure: the ingest path
/// tries its batch again), the next one reconnects, prepares its statements again and runs
/// its session setup; a transaction the connection was lost in is not resumed.
@Suite(.serialized, .enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresReconnectionTests {
    @Test func aStoreReconnectsAfterTheServerRestarts() throws {
        let server = try ThrowawayPostgres()
        let store = try PostgresStore(url: server.url, schema: .core)
        try store.ensureUser("u1", firstSeenAt: 1)
        #expect(try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } == 1)

        try server.restart()
        var firstError: (any Error)?
        do {
            _ = try store.first("SELECT count(*) FROM users", []) { $0.integer(0) }
        } catch {
            firstError = error
        }
        if let firstError {
            #expect((firstError as? any TransientStoreFailure)?.isTransient == true, "\(firstError)")
        }
        // From here on, the same statements run again on a new session.
        #expect(try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } == 1)
        try store.ensureUser("u2", firstSeenAt: 2)
        #expect(try store.first("SELECT current_setting('client_min_messages')", []) { $0.text(0) } == "warning")
        #expect(store.database.connection.reconnections == 1)
        try store.ping()
    }

    /// A listener listens again on its new session: notifications sent after the restart arrive.
    @Test func aListenerListensAgainAfterTheServerRestarts() throws {
        let server = try ThrowawayPostgres()
        let listener = try PostgresStore(url: server.url, schema: .core)
        _ = try listener.listen("journey_test_channel")
        try server.restart()
        _ = try? listener.ping()  // meets the broken connection
        try listener.ping()  // reconnects, listening again
        try PostgresStore(url: server.url, schema: .core).notify("journey_test_channel")
        #expect(try StoreNotificationTests.arrived(listener) == 1)
    }

    /// A transaction's start rides with its first statement: after a restart the first
    /// transaction meets the broken connection (a transient failure, nothing kept), and the next
    /// one opens the session again before it starts.
    @Test func aTransactionAfterTheServerRestartsReconnectsFirst() throws {
        let server = try ThrowawayPostgres()
        let store = try PostgresStore(url: server.url, schema: .core)
        try store.ensureUser("u1", firstSeenAt: 1)
        try server.restart()
        var firstError: (any Error)?
        do {
            try store.transaction {
                try store.ensureUser("u2", firstSeenAt: 2)
                _ = try store.first("SELECT count(*) FROM users", []) { $0.integer(0) }
            }
        } catch {
            firstError = error
        }
        if let firstError {
            #expect((firstError as? any TransientStoreFailure)?.isTransient == true, "\(firstError)")
        }
        try store.transaction { try store.ensureUser("u3", firstSeenAt: 3) }
        let users = try store.rows("SELECT user_id FROM users ORDER BY user_id", []) { $0.text(0) ?? "" }
        #expect(users == (firstError == nil ? ["u1", "u2", "u3"] : ["u1", "u3"]))
        #expect(store.database.connection.reconnections == 1)
    }

    @Test func aTransactionTheConnectionWasLostInIsNotResumed() throws {
        let server = try ThrowawayPostgres()
        let store = try PostgresStore(url: server.url, schema: .core)
        #expect {
            try store.transaction {
                try store.ensureUser("lost", firstSeenAt: 1)
                try server.restart()
                try store.ensureUser("after", firstSeenAt: 2)
            }
        } throws: { error in
            (error as? any TransientStoreFailure)?.isTransient == true
        }
        #expect(try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } == 0)
        try store.transaction { try store.ensureUser("again", firstSeenAt: 3) }
        #expect(try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } == 1)
    }
}
