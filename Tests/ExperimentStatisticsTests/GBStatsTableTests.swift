import Core
import TestSupport
import Testing

@testable import ExperimentStatistics

/// The t-test and the sample-ratio check give gbstats 0.8.0's numbers for fixed counts
/// (Cases/gbstats.yaml, copied from a gbstats run): this runs everywhere, without Python.
struct GBStatsTableTests {
    static let cases = try! CaseFile("gbstats.yaml")

    /// Within 1e-9 of gbstats, relative (1e-15 absolute near 0: gbstats forms p-values as
    /// 2·(1 − cdf), which keeps no more).
    static func agrees(_ actual: Double, _ expected: Double) -> Bool {
        abs(actual - expected) <= 1e-9 * abs(expected) + 1e-15
    }

    /// What gbstats answers for one kind of difference: an estimate, or an error.
    static let estimate = CaseKeys(expecting: ["estimate", "error"], others: ["lower", "upper", "p_value"])

    static func statistic(_ json: JSON?) -> ProportionStatistic {
        ProportionStatistic(n: Int(json!["users"]!.numberValue!), conversions: Int(json!["conversions"]!.numberValue!))
    }

    @Test(
        arguments: try cases.cases(
            "comparisons",
            keys: CaseKeys(
                expecting: ["relative", "absolute"], others: ["control", "treatment"],
                parts: [
                    "relative": Self.estimate, "absolute": Self.estimate,
                    "control": CaseKeys(others: ["users", "conversions"]),
                    "treatment": CaseKeys(others: ["users", "conversions"]),
                ])))
    func comparison(_ row: NamedCase) {
        for difference in TwoSidedTTest.Difference.allCases {
            let test = TwoSidedTTest(
                control: Self.statistic(row["control"]), treatment: Self.statistic(row["treatment"]),
                difference: difference)
            let want = row[difference.rawValue]!
            switch test.result() {
            case .success(let estimate):
                #expect(want["error"] == nil, "\(difference): gbstats says \(want["error"] ?? .null)")
                #expect(Self.agrees(estimate.estimate, want["estimate"]!.numberValue!), "\(difference) \(estimate)")
                #expect(Self.agrees(estimate.lower, want["lower"]!.numberValue!), "\(difference) \(estimate)")
                #expect(Self.agrees(estimate.upper, want["upper"]!.numberValue!), "\(difference) \(estimate)")
                #expect(Self.agrees(estimate.pValue, want["p_value"]!.numberValue!), "\(difference) \(estimate)")
            case .failure(let reason):
                #expect(want["error"]?.stringValue == reason.rawValue, "\(difference): \(reason)")
            }
        }
    }

    @Test(
        arguments: try cases.cases(
            "sample_ratio", keys: CaseKeys(expecting: ["p_value"], others: ["users", "weights"])))
    func sampleRatio(_ row: NamedCase) {
        let users = row["users"]!.arrayValue!.map { Int($0.numberValue!) }
        let weights = row["weights"]!.arrayValue!.map { $0.numberValue! }
        let p = SampleRatioMismatch.pValue(users: users, weights: weights)
        #expect(Self.agrees(p, row["p_value"]!.numberValue!), "p = \(p)")
    }
}
