import Core
import Engine
import Foundation
import TestSupport
import Testing

@testable import Journey

/// DJ-31: a hands_on check on a health topic says "does not replace a vet" where the app shows
/// its result: on the answer (with the interpretation) and on the record it adds.
@Suite struct VetCaptionTests {
    static func answer(_ journey: JourneyHarness, _ block: String, _ outcome: String) throws -> IngestResult {
        journey.send("block_started", ["block_id": .string(block)])
        let result = journey.send(
            "check_answered", ["block_id": .string(block), "answer": ["outcome": .string(outcome)]])
        #expect(result.status == .accepted, "\(result.json.compactText)")
        return result
    }

    @Test func aHealthHandsOnResultAndRecordSayItDoesNotReplaceAVet() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let result = try Self.answer(journey, "weight-baseline", "weighed")
        let answered = try #require(result.effects.first { $0["type"] == "check_answered" })
        #expect(answered["caption"] == .string("Эта проверка не заменяет ветеринара."))
        #expect(answered["interpretation"]?.stringValue?.isEmpty == false)
        let record = try #require(result.effects.first { $0["type"] == "record_added" })
        #expect(record["payload"]?["note"] == .string("Эта проверка не заменяет ветеринара."))
        let stored = try journey.store.records(dog: "miso", block: "weight-baseline", source: "journey")
        #expect(stored.first?.payload["note"] == .string("Эта проверка не заменяет ветеринара."))
    }

    @Test func notOutsideHealthNorForLater() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let later = try Self.answer(journey, "weight-baseline", "later")
        #expect(later.effects.first { $0["type"] == "check_answered" }?["caption"] == nil)

        try BlockResultTests.prepare(journey, "bond-building-games")
        journey.send("observation_recorded", ["field": "play", "value": "tug"])
        let mind = try Self.answer(journey, "handling-tolerance", "relaxed")
        #expect(mind.effects.first { $0["type"] == "check_answered" }?["caption"] == nil)
        #expect(mind.effects.first { $0["type"] == "record_added" }?["payload"]?["note"] == nil)
    }
}
