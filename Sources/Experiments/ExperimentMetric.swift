import Core
import RuleEngine

/// A goal or guardrail metric of an experiment (`metrics:` / `guardrails:` in
/// `Rules/experiments.yaml`): a user converts when an event of type `event` (an app event the
/// engine accepted, or an analytics event it wrote under that name) for which the `where`
/// condition holds happens within `window` seconds after the user's first exposure.
public struct ExperimentMetric: Sendable {
    /// snake_case, unique among the experiment's metrics and guardrails.
    public var key: String
    /// The event type (app events) or name (analytics events) counted.
    public var event: String
    /// The jq condition as written; nil when every event of the type counts.
    public var condition: String?
    /// The `experiment_metric` rule evaluating `condition`.
    public var conditionRuleID: String?
    /// Seconds after the first exposure within which the event counts (both ends included).
    public var window: Double
    /// A metric watched for harm rather than the one the experiment is meant to move.
    public var isGuardrail: Bool
    public var location: SourceLocation

    /// The id of the rule of `experiment`'s metric `key`'s condition.
    public static func conditionRuleID(experiment: String, metric: String) -> String {
        "experiment.\(experiment).\(metric)"
    }

    /// `{key, event, where, within, guardrail}` as `journey experiments --format json` and the
    /// report show it.
    public var json: JSON {
        .object([
            "key": .string(key), "event": .string(event), "where": condition.map(JSON.string) ?? .null,
            "within": .string(DurationText.format(.milliseconds(Int64((window * 1000).rounded())))),
            "within_seconds": .number(window), "guardrail": .bool(isGuardrail),
        ])
    }
}
