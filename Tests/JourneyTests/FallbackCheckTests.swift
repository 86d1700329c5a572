import Core
import Engine
import Foundation
import Store
import TestSupport
import Testing

@testable import Journey

/// DJ-54: a block's check may fall back to a check of another type when the dog isn't nearby
/// (body-condition-score: hands_on, falling back to a self_screen of silhouettes). Answered with
/// `payload.fallback: true`, it does the block's check step with its own records.
@Suite struct FallbackCheckTests {
    static func ready() throws -> JourneyHarness {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try BlockResultTests.prepare(journey, "weight-baseline")
        journey.send("weight_saved", ["kg": 7.4])
        journey.send("block_started", ["block_id": "body-condition-score"])
        journey.send("theory_viewed", ["block_id": "body-condition-score"])
        return journey
    }

    @Test func theFallbackCheckDoesTheCheckAndTheBlockCompletes() throws {
        let journey = try Self.ready()
        // Not nearby: "remind me later" first, then the silhouettes instead.
        journey.send("check_answered", ["block_id": "body-condition-score", "answer": ["outcome": "later"]])
        #expect(try CheckReminderTests.pending(journey, "body-condition-score") == 1)
        let answered = journey.send(
            "check_answered",
            ["block_id": "body-condition-score", "answer": ["option": "waist-visible"], "fallback": true])
        #expect(answered.status == .accepted, "\(answered.json.compactText)")
        let record = try #require(answered.effects.first { $0["type"] == "record_added" })
        #expect(record["kind"] == "observation")
        #expect(record["block_id"] == "body-condition-score")
        #expect(record["payload"]?["field"] == "body_condition_silhouette")
        #expect(record["payload"]?["value"] == "waist-visible")
        let check = try #require(answered.effects.first { $0["type"] == "check_answered" })
        #expect(check["check_type"] == "self_screen")
        let analytics = try #require(answered.effects.first { $0["name"] == "check_completed" })
        #expect(analytics["properties"]?["type"] == "self_screen")
        #expect(analytics["properties"]?["fallback"] == true)
        #expect(answered.effects.contains { $0["type"] == "reminders_cancelled" })
        #expect(try CheckReminderTests.pending(journey, "body-condition-score") == 0)

        let done = journey.send("observation_recorded", ["field": "body_condition_score", "value": 5])
        #expect(done.effects.contains { $0["type"] == "block_completed" && $0["block_id"] == "body-condition-score" })
        #expect(try journey.views.state("miso").isCompleted("body-condition-score"))
    }

    @Test(arguments: [
        (
            "weight-baseline", JSON.bool(true),
            "`payload.fallback` is true, but block `weight-baseline` has no fallback check (its check is hands_on): answer it without"
        ),
        ("body-condition-score", JSON.string("yes"), "`payload.fallback` must be true or false"),
    ])
    func aFallbackAnswerNeedsAFallbackCheck(block: String, fallback: JSON, message: String) throws {
        let journey = try Self.ready()
        let refused = journey.send(
            "check_answered", ["block_id": .string(block), "answer": ["option": "waist-visible"], "fallback": fallback])
        #expect(refused.status == .rejected)
        #expect(refused.json.compactText.contains(message), "\(refused.json.compactText)")
        #expect(
            try journey.count(
                "SELECT count(*) FROM profile_records WHERE block_id = '\(block)' AND kind = 'observation' AND json_extract(payload, '$.value') = 'waist-visible'"
            ) == 0)
    }
}
