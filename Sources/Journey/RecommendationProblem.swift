import RuleEngine

/// The recommendation rule named a block the dog's journey lacks (`unknown_reference`): what
/// answered instead — its fallback, or nothing. Never a silent null: the views log it, and the
/// evaluator's observer counted the failure (the service's `journey_rule_errors_total`).
public struct RecommendationProblem: Sendable, CustomStringConvertible {
    public var dogID: String
    /// The failure, naming the rule, its variant (or fallback) and the block id.
    public var error: RuleError
    /// Whether the fallback answered (with ``fallbackAnswer``); false when the rule has no
    /// fallback or the fallback named a missing block too: then nothing is recommended.
    public var usedFallback: Bool
    /// What the fallback answered (nil: nothing to recommend).
    public var fallbackAnswer: String?

    /// `dog q-123: rule `recommendation` (variant `control`) returned block id `x`, which is not
    /// a block of Q's journey; did you mean `y`? [unknown_reference]; answered with its fallback (`z`)`
    public var description: String {
        let outcome =
            usedFallback
            ? "answered with its fallback (\(fallbackAnswer.map { "`\($0)`" } ?? "nothing to recommend"))"
            : "nothing is recommended (no fallback answered)"
        return "dog \(dogID): \(error.message) [\(error.code.rawValue)]; \(outcome)"
    }
}
