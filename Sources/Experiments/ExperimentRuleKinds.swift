import Core
import RuleEngine

/// The experiments feature's rule kind: a metric's `where:` condition.
extension RuleKind {
    public static let experimentMetric = RuleKind(
        name: "experiment_metric",
        summary: "Decides whether an event counts toward an experiment's metric (its `where:`).",
        inputDescription: "{source, type, occurred_at, dog_id, payload}: an app or analytics event",
        requiredMembers: [Member("type", .string), Member("payload", .object)], inputIsObject: true,
        outputDescription: "any value: the event counts unless it is false or null; no output means it does not",
        cardinality: .atMostOne(whenEmpty: false),
        checkOutput: { _ in nil })
}
