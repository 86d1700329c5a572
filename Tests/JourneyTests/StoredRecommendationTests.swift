import Core
import Foundation
import TestSupport
import Testing

@testable import Journey

/// DJ-08: Today's card is the manifest's `recommended_block_id`, chosen once at registration,
/// while that block is open; once it is completed, the recommendation rule picks the next one.
@Suite struct StoredRecommendationTests {
    /// Views of `journey`'s store through rules whose recommendation always answers `block`
    /// (as if the rule had been changed since the dog was registered).
    static func views(_ journey: JourneyHarness, recommending block: String) throws -> (JourneyViews, JourneyHarness) {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        try folder.write(
            "journey/recommendation.yaml", "rule: recommendation\nkind: recommendation\nexpr: '\"\(block)\"'\n")
        let other = try JourneyHarness(rules: folder.path, now: "2026-11-20T08:00:00Z")
        return (JourneyViews(store: journey.store, evaluator: other.evaluator, now: journey.clock), other)
    }

    @Test func todayKeepsTheStoredRecommendationWhileItsBlockIsOpen() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        #expect(try journey.store.manifest(dog: "miso")?.manifest["recommended_block_id"] == "breed-traits")

        let (views, other) = try Self.views(journey, recommending: "bond-building-games")
        defer { withExtendedLifetime(other) {} }
        #expect(try views.today("miso")["recommended"]?["block_id"] == "breed-traits")
        #expect(try views.manifest("miso")["statuses"]?["breed-traits"] == "recommended")
        #expect(try views.manifest("miso")["statuses"]?["bond-building-games"] == "available")
        #expect(try views.journey("miso")["recommended_block_id"] == "breed-traits")

        // Half-way through, it is still the one (with its next step).
        journey.send("block_started", ["block_id": "breed-traits"])
        let started = try JourneyViews(store: journey.store, evaluator: other.evaluator, now: journey.clock)
            .today("miso")["recommended"]
        #expect(started?["block_id"] == "breed-traits")
        #expect(started?["next_step"] == "theory")
    }

    @Test func onceTheStoredBlockIsCompletedTheRulePicksTheNext() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try BlockResultTests.prepare(journey, "breed-traits")
        journey.send("observation_recorded", ["field": "energy", "value": "high"])

        let (views, other) = try Self.views(journey, recommending: "bond-building-games")
        defer { withExtendedLifetime(other) {} }
        let today = try views.today("miso")
        #expect(today["recommended"]?["block_id"] == "bond-building-games")
        #expect(try views.manifest("miso")["statuses"]?["breed-traits"] == "completed")
        // The manifest itself is never rebuilt.
        #expect(try views.manifest("miso")["recommended_block_id"] == "breed-traits")
    }
}
