import Foundation
import Store
import TestSupport
import Testing

/// A change announced on one connection reaches the others listening (PostgreSQL's
/// LISTEN/NOTIFY): at commit, never from a transaction rolled back. SQLite has nothing to
/// listen on: its processes poll.
@Suite struct StoreNotificationTests {
    /// Drains `store` until a notification arrived; how many arrived.
    static func arrived(_ store: any StoreConnection) throws -> Int {
        var count = 0
        try waitUntil("a notification") {
            count += store.drainNotifications()
            return count > 0
        }
        return count
    }

    @Test(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
    func aNotificationReachesTheListenersAtCommitOnly() throws {
        let backend = try TestStore("postgres", schema: .core)
        let listener = backend.store
        let descriptor = try listener.listen("journey_test_channel")
        #expect(descriptor != nil && descriptor == listener.notificationDescriptor)
        let other = try backend.connect()

        // A listener's own notification reaches it with the answer to its commit, so it is there
        // to count at once: one rolled back never comes, one committed does.
        struct Undo: Error {}
        try? listener.transaction {
            try listener.notify("journey_test_channel")
            throw Undo()
        }
        try listener.transaction { try listener.notify("journey_test_channel") }
        #expect(listener.drainNotifications() == 1, "a rolled-back transaction announces nothing")
        // Another connection's, soon after its commit.
        try? other.transaction {
            try other.notify("journey_test_channel")
            throw Undo()
        }
        try other.transaction { try other.notify("journey_test_channel") }
        #expect(try Self.arrived(listener) >= 1)
        try other.notify("journey_test_channel")
        try other.notify("journey_test_channel")
        #expect(try Self.arrived(listener) >= 1)
    }

    @Test func sqliteHasNothingToListenOn() throws {
        let backend = try TestStore("sqlite", schema: .core)
        #expect(try backend.store.listen("journey_test_channel") == nil)
        try backend.store.notify("journey_test_channel")
        #expect(backend.store.drainNotifications() == 0)
    }
}
