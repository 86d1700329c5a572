import Challenges
import Core
import Features
import JQ
import RuleEngine
import TestSupport
import Testing

/// A challenge's knobs as parameters: its fields written `$params.NAME` take the values of
/// the revision, and its jq reads `$params`.
@Suite struct ChallengeParameterTests {
    /// A document's fields written `$params.NAME` take the value (here a challenge's target,
    /// end and grace), and its jq reads `$params` too.
    @Test func aDocumentsFieldsAndRulesTakeItsValues() throws {
        let directory = try TemporaryDirectory([
            "c.yaml": """
            challenge: walk
            title: Walk
            type: solo
            params:
              target_km: {type: number, unit: km, default: 50, description: How far.}
              min_km: {type: number, unit: km, default: 0.5, description: The shortest walk that counts.}
              grace: {type: duration, default: 5m, description: How late.}
              ends_at: {type: date, default: "2026-12-15T23:59:59+01:00", description: When it ends.}
            metric:
              events: [walk_completed]
              expr: .payload.distance_km | select(. >= $params.min_km)
            target_value: $params.target_km
            starts_at: 2026-11-16T00:00:00+01:00
            ends_at: $params.ends_at
            grace: $params.grace
            """,
            "params.yaml":
                "values:\n  walk:\n    target_km: 60\n    min_km: 1\n    ends_at: \"2026-12-20T23:59:59+01:00\"\n",
        ])
        let result = Features.all.loader(rulesDirectory: directory.path, pluginsDirectory: nil).load()
        let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
        let challenge = try #require(ruleSet.documents(of: Challenge.self).first)
        #expect(challenge.target == 60)
        #expect(challenge.grace == 300)
        #expect(challenge.endsAt == Timestamp.parse("2026-12-20T23:59:59+01:00"))
        let metric = try #require(ruleSet.rules.first { $0.parameters != nil })
        #expect(metric.parameters?["min_km"] == 1)
        let evaluator = try #require(result.evaluator)
        let short: JSON = [
            "event_id": "e1", "user_id": "u1", "type": "walk_completed", "occurred_at": "2026-11-20T10:00:00Z",
            "payload": ["distance_km": 0.8],
        ]
        #expect(try evaluator.evaluate(metric.id, input: JV(short)).outputs == [])
        #expect(ruleSet.parameters.map(\.name) == ["walk.target_km", "walk.min_km", "walk.grace", "walk.ends_at"])
    }
}
