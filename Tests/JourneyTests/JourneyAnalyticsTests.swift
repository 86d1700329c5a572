import Core
import Engine
import Foundation
import Store
import TestSupport
import Testing

/// The journey's analytics that follow what the app reports: the AI interpretation read (not
/// generated), records from every source, and the return within a week.
@Suite struct JourneyAnalyticsTests {
    func names(_ journey: JourneyHarness) throws -> [String] {
        try journey.store.rows("SELECT name FROM analytics_outbox ORDER BY occurred_at, id") { $0.text(0) ?? "" }
    }

    @Test func theInterpretationIsCompletedWhenTheAppSaysItWasRead() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        #expect(try !names(journey).contains("ai_interpretation_completed"), "generated is not read")
        #expect(try names(journey).contains("ai_interpretation_generated"))
        let read = journey.send("ai_interpretation_read")
        #expect(read.status == .accepted, "\(read.json)")
        #expect(try names(journey).filter { $0 == "ai_interpretation_completed" }.count == 1)
        let noDog = journey.ingest(
            [
                "event_id": "x", "user_id": "owner", "type": "ai_interpretation_read",
                "occurred_at": .string(Timestamp.format(journey.clock)),
            ])
        #expect(noDog.code == "invalid")
    }

    /// A weight the app saves (not only a check's records) counts as records added.
    @Test func recordsFromTheAppCount() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        journey.send("weight_saved", ["kg": 9.5])
        let added = try journey.store.rows(
            "SELECT properties FROM analytics_outbox WHERE name = 'profile_records_added'"
        ) { try JSONParser().parse($0.text(0) ?? "") }
        #expect(added.count == 1)
        #expect(added.first?["count"] == 1 && added.first?["kinds"] == ["weight"] && added.first?["source"] == "app")
    }

    struct ReturnCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Hours after the first open of the later opens, in the order they arrive.
        var opens: [Double]
        /// Hours after the first open of the return counted; nil when none.
        var counted: Double?
        var testDescription: String { name }
    }

    static let returns: [ReturnCase] = [
        ReturnCase(name: "back after two days", opens: [48], counted: 48),
        ReturnCase(name: "back after eight days is not a return", opens: [192], counted: nil),
        ReturnCase(name: "once, at the first return", opens: [24, 72, 100], counted: 24),
        ReturnCase(name: "exactly seven days", opens: [168], counted: 168),
        ReturnCase(name: "an earlier return arriving later moves it back", opens: [150, 20], counted: 20),
        ReturnCase(
            name: "an open before the first, arriving later, makes the first a return", opens: [-48], counted: 0),
        ReturnCase(name: "an open before the first moves a return counted back to it", opens: [100, -30], counted: 0),
    ]

    @Test(arguments: returns)
    func theReturnWithinAWeek(_ testCase: ReturnCase) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let first = journey.clock + 60
        journey.send("journey_opened")
        for (n, hours) in testCase.opens.enumerated() {
            journey.clock = max(journey.clock, first + hours * 3600)
            let opened = journey.ingest(
                [
                    "event_id": .string("open-\(n)"), "user_id": "owner", "type": "journey_opened", "dog_id": "miso",
                    "occurred_at": .string(Timestamp.format(first + hours * 3600)),
                ])
            #expect(opened.status == .accepted, "open \(n): \(opened.message ?? "")")
        }
        let counted = try journey.store.rows(
            "SELECT occurred_at FROM analytics_outbox WHERE name = 'journey_return_d7'"
        ) { $0.real(0) }
        #expect(counted == (testCase.counted.map { [first + $0 * 3600] } ?? []))
    }
}
