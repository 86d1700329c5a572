import Foundation
import Store
import TestSupport
import Testing

/// A change announced on one connection reaches the others listening (PostgreSQL's
/// LISTEN/NOTIFY): at commit, never from a transaction rolled back. SQLite has nothing to
/// listen on: its processes poll.
@Suite struct StoreNotificationTests {
    /// Drains `store` until a notification arrived, at most `seconds`; how many arrived.
    static func arrived(_ store: any StoreConnection, within seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var count = 0
        repeat {
            count += store.drainNotifications()
            if count > 0 { return count }
            usleep(20_000)
        } while Date() < deadline
        return count
    }

    @Test(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
    func aNotificationReachesTheListenersAtCommitOnly() throws {
        let backend = try TestStore("postgres", schema: .core)
        let listener = backend.store
        let descriptor = try listener.listen("journey_test_channel")
        #expect(descriptor != nil && descriptor == listener.notificationDescriptor)
        let other = try backend.connect()

        struct Undo: Error {}
        try? other.transaction {
            try other.notify("journey_test_channel")
            throw Undo()
        }
        #expect(Self.arrived(listener, within: 0.3) == 0, "a rolled-back transaction announces nothing")

        try other.transaction { try other.notify("journey_test_channel") }
        #expect(Self.arrived(listener, within: 5) == 1)
        try other.notify("journey_test_channel")
        try other.notify("journey_test_channel")
        #expect(Self.arrived(listener, within: 5) >= 1)
    }

    @Test func sqliteHasNothingToListenOn() throws {
        let backend = try TestStore("sqlite", schema: .core)
        #expect(try backend.store.listen("journey_test_channel") == nil)
        try backend.store.notify("journey_test_channel")
        #expect(backend.store.drainNotifications() == 0)
    }
}
