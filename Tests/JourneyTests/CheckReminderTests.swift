import Core
import Engine
import Foundation
import Store
import TestSupport
import Testing

@testable import Journey

/// DJ-30: "not near — remind me later" schedules an evening reminder; doing the check before
/// it fires cancels it, and only it.
@Suite struct CheckReminderTests {
    static func pending(_ journey: JourneyHarness, _ block: String) throws -> Int {
        try journey.count(
            "SELECT count(*) FROM reminders WHERE status = 'pending' AND json_extract(payload, '$.block_id') = '\(block)'"
        )
    }

    @Test func doingTheCheckCancelsItsRemindMeLater() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        journey.send("block_started", ["block_id": "weight-baseline"])
        let later = journey.send(
            "check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "later"]])
        #expect(later.effects.contains { $0["type"] == "reminder_scheduled" && $0["kind"] == "check_later" })
        #expect(try Self.pending(journey, "weight-baseline") == 1)

        let done = journey.send(
            "check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "weighed"]])
        let cancelled = try #require(done.effects.first { $0["type"] == "reminders_cancelled" }, "\(done.json)")
        #expect(cancelled["block_id"] == "weight-baseline")
        #expect(cancelled["count"] == 1)
        #expect(try Self.pending(journey, "weight-baseline") == 0)
        #expect(try journey.count("SELECT count(*) FROM reminders WHERE status = 'cancelled'") == 1)
        // The push sender never gets it.
        #expect(try journey.store.dueReminders(before: journey.clock + 365 * 86_400, limit: 100).isEmpty)
    }

    /// The same in one batch: the "remind me later" is still held in memory (a batch merges its
    /// reminders before writing them) when the check is done, and the check still finds it.
    @Test func aCheckDoneInTheBatchOfItsRemindMeLaterCancelsIt() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        let results = journey.sendBatch([
            ("dog_registered", JourneyBehaviourTests.registration),
            ("block_started", ["block_id": "weight-baseline"]),
            ("check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "later"]]),
            ("check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "weighed"]]),
        ])
        #expect(results.map(\.status) == [.accepted, .accepted, .accepted, .accepted], "\(results.map(\.json))")
        let cancelled = try #require(results[3].effects.first { $0["type"] == "reminders_cancelled" })
        #expect(cancelled["count"] == 1)
        #expect(try Self.pending(journey, "weight-baseline") == 0)
        #expect(try journey.count("SELECT count(*) FROM reminders WHERE status = 'cancelled'") == 1)
    }

    @Test func anotherBlocksCheckLeavesTheReminderAlone() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        journey.send("block_started", ["block_id": "weight-baseline"])
        journey.send("check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "later"]])
        journey.send("block_started", ["block_id": "bond-building-games"])
        let map = try journey.views.state("miso").map
        let option = try #require(map.block("bond-building-games")?.content["check"]?["options"]?[0]?["id"])
        let other = journey.send("check_answered", ["block_id": "bond-building-games", "answer": ["option": option]])
        #expect(other.status == .accepted)
        #expect(!other.effects.contains { $0["type"] == "reminders_cancelled" })
        #expect(try Self.pending(journey, "weight-baseline") == 1)
    }

    @Test func aCheckDoneWithoutALaterCancelsNothing() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        journey.send("block_started", ["block_id": "weight-baseline"])
        let done = journey.send(
            "check_answered", ["block_id": "weight-baseline", "answer": ["outcome": "weighed"]])
        #expect(done.status == .accepted)
        #expect(!done.effects.contains { $0["type"] == "reminders_cancelled" })
    }
}
