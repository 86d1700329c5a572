import Core
import Testing

/// The service counts a recommendation naming a block the dog's journey lacks where it counts
/// every rule failure (`journey_rule_errors_total`), and Today answers with the fallback.
@Suite struct UnknownBlockMetricsTests {
    static let recommendation = """
        rule: recommendation
        kind: recommendation
        expr: '.blocks[0].id + "s"'
        fallback: |
          include "journey";
          (.branches | branch_ranks) as $ranks | available_blocks | nearest(0; $ranks) | .id?
        """

    /// The value of `name{rule="recommendation"}` in the Prometheus text.
    static func counter(_ name: String, in metrics: String) -> Int? {
        let prefix = name + "{rule=\"recommendation\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test func todayAnswersWithTheFallbackAndTheFailureIsCounted() throws {
        let harness = try ServiceHarness(files: ["journey/recommendation.yaml": Self.recommendation])
        let before = harness.send("GET", "/metrics").text
        let today = harness.send("GET", "/v1/dogs/q-123/today")
        #expect(today.status == 200, "\(today.text)")
        #expect(today.json["recommended"]?["block_id"] != .null, "the fallback recommends a block: \(today.text)")
        let after = harness.send("GET", "/metrics").text
        for name in ["journey_rule_errors_total", "journey_rule_fallbacks_total"] {
            let counted = (Self.counter(name, in: after) ?? 0) - (Self.counter(name, in: before) ?? 0)
            #expect(counted == 1, "\(name): \(after)")
        }
    }
}
