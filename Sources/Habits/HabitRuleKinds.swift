import Core
import RuleEngine

/// The habit trackers' rule kind.
extension RuleKind {
    public static let habitStat = RuleKind(
        name: "habit_stat",
        summary: "One statistic of a user's habit trackers.",
        inputDescription: "{trackers, days}: each tracker with its check-in facts, each date with a check-in",
        requiredMembers: [Member("trackers", .array), Member("days", .array)], inputIsObject: true,
        outputDescription: "a finite number",
        cardinality: .one,
        checkOutput: { output in
            guard let n = output.numberValue, n.isFinite else { return "expected a finite number" }
            return nil
        })
}
