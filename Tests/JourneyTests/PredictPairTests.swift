import Core
import Engine
import Store
import TestSupport
import Testing

/// A predict check keeps one record per check: the guess alone is a draft, replaced by the
/// guess-and-measurement pair that completes the check (DJ-35), and only the pair is counted
/// as a record added.
@Suite struct PredictPairTests {
    struct PairCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The answers to growth-check's predict, in turn.
        var answers: [JSONObject]
        /// The prediction records kept afterwards: `guess/measured` (`-` for none).
        var kept: [String]
        /// How many `profile_records_added` analytics the block's check sent.
        var counted: Int
        var testDescription: String { name }
    }

    static let cases: [PairCase] = [
        PairCase(
            name: "guess, then measurement", answers: [["guess": 9], ["measured": 8.5]], kept: ["9/8.5"], counted: 1),
        PairCase(
            name: "guess, later, measurement", answers: [["guess": 9], ["outcome": "later"], ["measured": 8.5]],
            kept: ["9/8.5"], counted: 1),
        PairCase(name: "both at once", answers: [["guess": 9, "measured": 8.5]], kept: ["9/8.5"], counted: 1),
        PairCase(
            name: "a changed guess, then the pair", answers: [["guess": 9], ["guess": 10], ["measured": 8.5]],
            kept: ["10/8.5"], counted: 1),
        PairCase(name: "the guess alone stays a draft", answers: [["guess": 9]], kept: ["9/-"], counted: 0),
    ]

    @Test(arguments: cases)
    func oneRecordPerCheck(_ testCase: PairCase) throws {
        let journey = try PluginTextsTests.growthCheck()
        for answer in testCase.answers {
            journey.clock += 60
            let result = journey.send("check_answered", ["block_id": "growth-check", "answer": .object(answer)])
            #expect(result.status == .accepted, "\(answer): \(result.json.compactText)")
        }
        let kept = try journey.store.records(dog: "miso", kind: "prediction").map { record in
            let measured = record.payload["measured"].flatMap { $0 == .null ? nil : $0.compactText } ?? "-"
            return "\(record.payload["guess"]?.compactText ?? "-")/\(measured)"
        }
        #expect(kept == testCase.kept)
        let counted = try journey.count(
            "SELECT count(*) FROM analytics_outbox WHERE name = 'profile_records_added' AND properties LIKE '%growth-check%'"
        )
        #expect(counted == testCase.counted)
    }
}
