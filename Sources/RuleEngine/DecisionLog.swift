import Core

/// The rules an answer was decided by, in the order they were evaluated: what a view's
/// `decision` shows (and `journey explain` details). Set one on an evaluator for the span of
/// one answer; nothing is kept beyond it.
public final class DecisionLog {
    /// One evaluation.
    public struct Entry: Sendable, Equatable {
        public var rule: String
        /// The variant evaluated (`default`, a variation of an experiment, or `fallback`).
        public var variant: String
        /// The experiment that chose the variant, when the rule has one.
        public var experiment: String?
        /// The error's code when the evaluation failed.
        public var error: String?
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    func record(_ rule: RuleDefinition, variant: String?, error: RuleError?) {
        entries.append(
            Entry(
                rule: rule.id, variant: variant ?? "-", experiment: rule.experiment,
                error: error.map { $0.code.rawValue }))
    }

    /// `{revision, rules: [{rule, variant, experiment?, error?}]}`, each rule once (its last
    /// evaluation: a view may evaluate a rule per block).
    public func json(revision: String) -> JSON {
        var seen: [String: Int] = [:]
        var unique: [Entry] = []
        for entry in entries {
            if let index = seen[entry.rule] {
                unique[index] = entry
            } else {
                seen[entry.rule] = unique.count
                unique.append(entry)
            }
        }
        return [
            "revision": .string(revision),
            "rules": .array(
                unique.map { entry in
                    var object: JSONObject = ["rule": .string(entry.rule), "variant": .string(entry.variant)]
                    if let experiment = entry.experiment { object["experiment"] = .string(experiment) }
                    if let error = entry.error { object["error"] = .string(error) }
                    return .object(object)
                }),
        ]
    }
}
