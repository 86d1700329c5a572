import Core
import JQ

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
        /// When the fallback answered because the variant failed or is quarantined: that code.
        public var fallbackReason: String?
        /// With ``detailed``: what the rule was given, gave, and printed (`debug`, `stderr`),
        /// the error's message, and for whom and when it ran.
        public var input: JSON?
        public var outputs: [JSON] = []
        public var trace: [TraceEntry] = []
        public var message: String?
        public var subject: ExperimentSubject?
        public var now: Double?
    }

    /// Whether entries keep their input, outputs and trace (`journey explain`), not only names.
    public let detailed: Bool
    public private(set) var entries: [Entry] = []

    /// Whether detailed entries keep their input too (it costs a conversion per evaluation).
    public let keepsInputs: Bool

    public init(detailed: Bool = false, keepsInputs: Bool = true) {
        self.detailed = detailed
        self.keepsInputs = keepsInputs
    }

    func record(
        _ rule: RuleDefinition, variant: String?, error: RuleError?, input: JV, result: RuleResult?,
        options: EvaluationOptions
    ) {
        var entry = Entry(
            rule: rule.id, variant: variant ?? "-", experiment: rule.experiment, error: error.map { $0.code.rawValue },
            fallbackReason: result?.primaryError?.code.rawValue)
        if detailed {
            if keepsInputs { entry.input = try? input.json() }
            entry.outputs = result?.outputs ?? []
            entry.trace = result?.trace ?? []
            entry.message = error?.message ?? result?.primaryError?.message
            entry.subject = options.subject
            entry.now = options.now
        }
        entries.append(entry)
    }

    /// Forgets the entries, to log the next answer with the same log.
    public func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    /// `{revision, rules: [{rule, variant, experiment?, error?}]}`, each rule once (its last
    /// evaluation: a view may evaluate a rule per block).
    public func json(revision: String) -> JSON {
        ["revision": .string(revision), "rules": Self.rulesJSON(entries)]
    }

    /// `[{rule, variant, experiment?, error?}]` of `entries`, each rule once (its last
    /// evaluation).
    public static func rulesJSON(_ entries: [Entry]) -> JSON {
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
        return .array(
            unique.map { entry in
                var object: JSONObject = ["rule": .string(entry.rule), "variant": .string(entry.variant)]
                if let experiment = entry.experiment { object["experiment"] = .string(experiment) }
                if let error = entry.error { object["error"] = .string(error) }
                return .object(object)
            })
    }
}
