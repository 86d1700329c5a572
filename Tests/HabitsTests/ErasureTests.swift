import Core
import Engine
import Foundation
import Habits
import Store
import TestSupport
import Testing

/// HB-18, HB-20: deleting a tracker (or a category, with its trackers) removes all of its data:
/// its rows, its name, emoji and colour from the stored events that created and changed it, and
/// its analytics not sent yet (withdrawn: marked sent, never delivered). The events stay, so a
/// resend is still a duplicate.
@Suite struct ErasureTests {
    static let personal = ["Walk Rex", "Walk Rex twice", "🐕", "🦮", "#FF8800", "Dog things"]

    static func count(_ harness: HabitsHarness, _ sql: String) throws -> Int {
        Int(try harness.store.connection.scalar(sql) ?? -1)
    }

    /// The stored events (payloads and effects) holding `text`.
    static func traces(_ harness: HabitsHarness, _ text: String) throws -> Int {
        let quoted = text.replacingOccurrences(of: "'", with: "''")
        return try count(
            harness, "SELECT count(*) FROM events WHERE payload LIKE '%\(quoted)%' OR outcome LIKE '%\(quoted)%'")
    }

    static func prepared() throws -> (HabitsHarness, tracker: JSON) {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "dog", "name": "Dog things"], at: "2026-11-01T08:00:00Z")
        let payload: JSONObject = [
            "tracker_id": "walk", "name": "Walk Rex", "schedule": ["mon", "tue"], "category": "dog", "emoji": "🐕",
            "color": "#ff8800",
        ]
        let event: JSON = [
            "event_id": "walk-created", "user_id": "u1", "type": "tracker_created",
            "occurred_at": "2026-11-01T08:01:00Z", "payload": .object(payload),
        ]
        #expect(harness.ingestor.ingest([event])[0].status == .accepted)
        harness.send(
            "u1", "tracker_updated", ["tracker_id": "walk", "name": "Walk Rex twice", "emoji": "🦮"],
            at: "2026-11-01T08:02:00Z")
        harness.send("u1", "category_created", ["category_id": "mind", "name": "Mind"], at: "2026-11-01T08:03:00Z")
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "read", "name": "Read", "schedule": ["mon"], "category": "mind", "emoji": "📖",
                "color": "#112233",
            ],
            at: "2026-11-01T08:03:00Z")
        harness.send("u1", "habit_checked", ["tracker_id": "walk"], at: "2026-11-02T20:00:00Z")
        harness.send("u1", "habit_checked", ["tracker_id": "read"], at: "2026-11-02T20:01:00Z")
        for text in personal { #expect(try traces(harness, text) > 0, "\(text) is stored before") }
        return (harness, event)
    }

    static let pendingChecks =
        "SELECT count(*) FROM analytics_outbox WHERE name = 'habit_checked' AND sent_at IS NULL AND properties LIKE '%\"tracker_id\":\"%@\"%'"

    @Test func deletingATrackerErasesItsNameEmojiColourAndUnsentAnalytics() throws {
        let (harness, created) = try Self.prepared()
        let events = try Self.count(harness, "SELECT count(*) FROM events")
        #expect(try Self.count(harness, Self.pendingChecks.replacingOccurrences(of: "%@", with: "walk")) == 1)

        let deleted = harness.send("u1", "tracker_deleted", ["tracker_id": "walk"], at: "2026-11-03T08:00:00Z")
        #expect(deleted.status == .accepted)
        for text in ["Walk Rex", "🐕", "🦮", "#FF8800", "#ff8800"] {
            #expect(try Self.traces(harness, text) == 0, "\(text) is gone from the event log")
        }
        #expect(try Self.count(harness, "SELECT count(*) FROM events") == events + 1, "every event is kept")
        #expect(try Self.count(harness, Self.pendingChecks.replacingOccurrences(of: "%@", with: "walk")) == 0)
        #expect(try Self.count(harness, Self.pendingChecks.replacingOccurrences(of: "%@", with: "read")) == 1)
        let pending = try harness.store.pendingAnalytics(limit: 100)
        #expect(!pending.contains { $0.event.properties["tracker_id"] == "walk" }, "the pipeline never gets it")
        #expect(try Self.traces(harness, "Read") > 0, "another tracker keeps its name")
        #expect(try Self.traces(harness, "Dog things") > 0, "its category stays")

        // Sent again, the creation is still a duplicate: the tracker does not come back.
        let resent = harness.ingestor.ingest([created])[0]
        #expect(resent.status == .duplicate, "\(resent.json)")
        #expect(try harness.store.habitTrackers(user: "u1").map(\.id) == ["read"])
    }

    /// Deleting a category erases its name; its trackers keep their data, without a category.
    @Test func deletingACategoryErasesItsNameAndKeepsItsTrackers() throws {
        let (harness, _) = try Self.prepared()
        let deleted = harness.send("u1", "category_deleted", ["category_id": "dog"], at: "2026-11-03T08:00:00Z")
        #expect(deleted.status == .accepted, "\(deleted.json)")
        #expect(try Self.traces(harness, "Dog things") == 0, "the category's name is gone from the event log")
        #expect(try Self.traces(harness, "Walk Rex") > 0, "its tracker keeps its own data")
        let trackers = try harness.store.habitTrackers(user: "u1")
        #expect(trackers.map(\.id).sorted() == ["read", "walk"])
        #expect(trackers.first { $0.id == "walk" }?.categoryID == nil)
        #expect(try harness.store.habitCategories(user: "u1").map(\.id) == ["mind"])
        #expect(try Self.count(harness, "SELECT count(*) FROM habit_checkins") == 2)
    }
}
