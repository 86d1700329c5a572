import Core
import RuleEngine

/// The challenges' rule kinds.
extension RuleKind {
    public static let challengeMetric = RuleKind(
        name: "challenge_metric",
        summary: "How much an event contributes to a challenge.",
        inputDescription: "the event as ingested: {event_id, user_id, type, occurred_at, payload}",
        requiredMembers: [Member("type", .string)], inputIsObject: true,
        outputDescription: "a finite number ≥ 0; no output means the event does not count (null)",
        cardinality: .atMostOne(whenEmpty: .null),
        checkOutput: { output in
            guard let n = output.numberValue, n.isFinite, n >= 0 else { return "expected a finite number ≥ 0" }
            return nil
        },
        eventTypePath: ["type"])

    public static let challengeCompletion = RuleKind(
        name: "challenge_completion",
        summary: "Whether a participant (or a community's group) has completed a challenge.",
        inputDescription: "{value, target, challenge, event}",
        requiredMembers: [Member("value", .number), Member("target", .number)], inputIsObject: true,
        outputDescription: "a boolean; no output means false",
        cardinality: .atMostOne(whenEmpty: false),
        checkOutput: { $0.boolValue == nil ? "expected a boolean" : nil })
}
