import Core
import Engine
import Foundation
import Store
import TestSupport
import Testing

@testable import Journey

/// The result screen (`block_completed`): what changed, and the one next block — one this
/// completion unlocked, the same branch first — with the return reminder.
@Suite struct BlockResultTests {
    /// Starts `block`, reads its theory and answers its check with its first choice; the
    /// action is left to the caller.
    static func prepare(_ journey: JourneyHarness, _ block: String) throws {
        let map = try journey.views.state("miso").map
        let content = try #require(map.block(block)).content["check"] ?? [:]
        let answer: JSON =
            if let option = content["options"]?[0]?["id"] {
                ["option": option]
            } else if let outcome = content["outcomes"]?[0]?["id"] {
                ["outcome": outcome]
            } else {
                ["guess": content["slider"]?["min"] ?? 0, "measured": content["slider"]?["max"] ?? 1]
            }
        journey.send("block_started", ["block_id": .string(block)])
        journey.send("theory_viewed", ["block_id": .string(block)])
        let checked = journey.send("check_answered", ["block_id": .string(block), "answer": answer])
        #expect(checked.status == .accepted, "\(block): \(checked.json.compactText)")
    }

    static func completion(_ result: IngestResult) throws -> JSON {
        try #require(result.effects.first { $0["type"] == "block_completed" }, "\(result.json.compactText)")
    }

    /// Completing bond-building-games opens three mind blocks and nothing elsewhere: the first
    /// of them on the path is offered, not today's recommendation in another branch.
    @Test func theNextBlockIsOneThisCompletionUnlockedInTheSameBranch() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try Self.prepare(journey, "bond-building-games")
        let done = try Self.completion(journey.send("observation_recorded", ["field": "play", "value": "tug"]))
        #expect(done["next_block"] == "handling-tolerance")
        #expect(done["next_reason"] == "unlocked")
        let changed = done["changed"]?.arrayValue ?? []
        #expect(changed.first?["what"] == "record_added", "\(done.compactText)")
        let observation = changed.first { $0["kind"] == "observation" }
        #expect(observation?["text"]?.stringValue?.hasSuffix(": записано в профиль Miso") == true, "\(changed)")
        #expect(done["return_reminder"] == .null)
    }

    /// Issue 42 (seed-audit-3 defect 3): a guess kept, then the pair, is one change, and the
    /// course started is named by its block, never by its id ("course impulse-101 started").
    @Test func whatChangedListsEachThingOnceAndNoId() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try Self.prepare(journey, "bond-building-games")
        journey.send("observation_recorded", ["field": "play", "value": "tug"])
        journey.send("block_started", ["block_id": "impulse-control-basics"])
        journey.send("theory_viewed", ["block_id": "impulse-control-basics"])
        journey.send("check_answered", ["block_id": "impulse-control-basics", "answer": ["guess": 12]])
        journey.send("check_answered", ["block_id": "impulse-control-basics", "answer": ["measured": 9]])
        let done = try Self.completion(journey.send("course_started", ["course_id": "impulse-101"]))
        let texts = (done["changed"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        #expect(
            texts == [
                "Выдержка, секунды: прогноз и замер сохранены в профиле Miso",
                "Курс Miso начат: «Основы самоконтроля»",
            ], "\(done.compactText)")
        #expect(!texts.joined().contains("impulse-101"))
    }

    /// Weight baseline: the check's marker and the saved weight are what changed; the next
    /// block is the health block it unlocked; the two-week return reminder is on the result.
    @Test func aSavedWeightIsAddedToTheHistoryAndTheReturnReminderIsShown() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try Self.prepare(journey, "weight-baseline")
        let done = try Self.completion(journey.send("weight_saved", ["kg": 7.4]))
        let texts = (done["changed"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        #expect(texts == ["Базовый вес: записано в профиль Miso", "Вес добавлен в историю Miso"], "\(texts)")
        #expect(done["next_block"] == "vaccination-record")
        #expect(done["next_reason"] == "unlocked")
        #expect(done["return_reminder"]?["kind"] == "weigh_again")
        #expect(done["return_reminder"]?["due_at"] == "2026-12-04T08:05:00Z")
        // In the owner's locale (no profile: the default, Russian): the document's «взвесьте Q через 2 недели».
        #expect(done["return_reminder"]?["text"] == "Взвесьте Miso: прошло 2 недели с первого замера.")
        // DJ-40: the push leads to the Progress review, which is open when it fires.
        #expect(done["return_reminder"]?["leads_to"] == "growth-check")
        let due = try #require(Timestamp.parse("2026-12-04T08:05:00Z"))
        let then = JourneyViews(store: journey.store, evaluator: journey.evaluator, now: due)
        #expect(try then.preview("miso", block: "growth-check")["status"] != "locked")
    }

    /// A course block lists the course it started; when nothing new opens, the offer falls
    /// back to the recommendation.
    @Test func aStartedCourseIsWhatChangedAndWithNothingUnlockedTheRecommendationIsNext() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try Self.prepare(journey, "bond-building-games")
        journey.send("observation_recorded", ["field": "play", "value": "tug"])
        try Self.prepare(journey, "impulse-control-basics")
        let done = try Self.completion(journey.send("course_started", ["course_id": "impulse-101"]))
        let changed = done["changed"]?.arrayValue ?? []
        #expect(changed.last?["what"] == "course_started")
        #expect(changed.last?["course_id"] == "impulse-101")
        #expect(changed.first?["kind"] == "prediction")
        // It unlocks recall-foundations and calm-settling, in its own branch.
        #expect(done["next_block"] == "recall-foundations" && done["next_reason"] == "unlocked")

        // breed-traits unlocks three lifestyle blocks; a lifestyle block that unlocks nothing
        // (car-comfort) offers the recommendation.
        try Self.prepare(journey, "breed-traits")
        journey.send("observation_recorded", ["field": "energy", "value": "high"])
        try Self.prepare(journey, "car-comfort")
        let last = try Self.completion(journey.send("observation_recorded", ["field": "car", "value": "calm"]))
        let recommended = try journey.views.today("miso")["recommended"]?["block_id"]
        #expect(last["next_reason"] == "recommended")
        #expect(last["next_block"] == recommended)
    }
}
