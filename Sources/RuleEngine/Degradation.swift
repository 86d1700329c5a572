import Core

/// A rule that did not answer for itself in a view: it failed (its budget, an error, a broken
/// contract) or is quarantined, and its fallback — or nothing — answered instead. Views list
/// them under `degraded` rather than failing.
public struct Degradation: Sendable, Equatable {
    public var rule: String
    /// The failure's code (`timeout`, `quarantined`, `runtime_error`, …).
    public var error: String
    /// Whether the rule's fallback answered (else the view shows nothing in its place).
    public var usedFallback: Bool

    public init(rule: String, error: String, usedFallback: Bool) {
        self.rule = rule
        self.error = error
        self.usedFallback = usedFallback
    }

    /// `quarantined` when the rule was set aside before, `failed` otherwise.
    public var reason: String { error == RuleError.Code.quarantined.rawValue ? "quarantined" : "failed" }

    /// `{rule, reason, error, answered_by: fallback|nothing}`.
    public var json: JSON {
        [
            "rule": .string(rule), "reason": .string(reason), "error": .string(error),
            "answered_by": .string(usedFallback ? "fallback" : "nothing"),
        ]
    }

    /// The degradations among a view's evaluations, each rule once (its first).
    public static func of(_ entries: [DecisionLog.Entry]) -> [Degradation] {
        var seen: Set<String> = []
        var found: [Degradation] = []
        for entry in entries {
            let degradation: Degradation
            if let error = entry.error {
                degradation = Degradation(rule: entry.rule, error: error, usedFallback: false)
            } else if let reason = entry.fallbackReason {
                degradation = Degradation(rule: entry.rule, error: reason, usedFallback: true)
            } else {
                continue
            }
            if seen.insert(entry.rule).inserted { found.append(degradation) }
        }
        return found
    }

    /// The degradation of one evaluation's result: nil when the rule answered for itself.
    public static func of(_ result: RuleResult) -> Degradation? {
        result.primaryError.map { Degradation(rule: result.rule, error: $0.code.rawValue, usedFallback: true) }
    }
}
