import Core
import Engine
import Store
import TestSupport
import Testing

/// `block_started` analytics count each block's first opening only: re-opening a block in
/// progress or completed is no new start (it would inflate the funnel block_started →
/// action_completed).
@Suite struct BlockStartedOnceTests {
    struct StartCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// `start`, `prepare` (started, theory and check) or `complete` (the action), in turn.
        var steps: [String]
        var counted: Int
        var testDescription: String { name }
    }

    static let cases: [StartCase] = [
        StartCase(name: "one start", steps: ["start"], counted: 1),
        StartCase(name: "opened twice while in progress", steps: ["start", "start"], counted: 1),
        StartCase(name: "re-opened after completion", steps: ["prepare", "complete", "start"], counted: 1),
        StartCase(
            name: "re-opened twice after completion", steps: ["prepare", "complete", "start", "start"], counted: 1),
        StartCase(name: "started by its theory, then opened", steps: ["theory", "start"], counted: 1),
    ]

    @Test(arguments: cases)
    func eachBlockStartsOnce(_ testCase: StartCase) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        for step in testCase.steps {
            journey.clock += 60
            let result: IngestResult
            switch step {
            case "start": result = journey.send("block_started", ["block_id": "weight-baseline"])
            case "theory": result = journey.send("theory_viewed", ["block_id": "weight-baseline"])
            case "prepare":
                try BlockResultTests.prepare(journey, "weight-baseline")
                continue
            default: result = journey.send("weight_saved", ["kg": 7.4])
            }
            #expect(result.status == .accepted, "\(step): \(result.json.compactText)")
        }
        let starts = try journey.count(
            "SELECT count(*) FROM analytics_outbox WHERE name = 'block_started' AND properties LIKE '%weight-baseline%'"
        )
        #expect(starts == testCase.counted)
    }
}
