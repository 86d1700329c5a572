import Core
import JQ

/// Why evaluating a rule failed; the message always names the rule (and variant).
public struct RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unknownRule = "unknown_rule"
        case unknownVariant = "unknown_variant"
        case noFallback = "no_fallback"
        case inputContract = "input_contract"
        case outputContract = "output_contract"
        case compileError = "compile_error"
        case runtimeError = "runtime_error"
        case halt = "halt"
        case timeout = "timeout"
        case tooDeep = "too_deep"
        case busy = "busy"
        /// The rule ran away earlier and is answered by its fallback until it changes.
        case quarantined = "quarantined"
        /// The experiment assignment choosing the variant could not be read or kept.
        case assignmentFailed = "assignment_failed"
        /// The result names something that does not exist (a block id the dog's journey lacks):
        /// it failed ``EvaluationOptions/outputCheck``.
        case unknownReference = "unknown_reference"
    }

    public var code: Code
    public var message: String
    public var rule: String
    public var variant: String?
    /// The offending output, for `output_contract`.
    public var output: JSON?
    /// The value given to `error(...)`, for `runtime_error`.
    public var value: JSON?

    public init(
        _ code: Code, _ message: String, rule: String, variant: String? = nil, output: JSON? = nil, value: JSON? = nil
    ) {
        self.code = code
        self.message = message
        self.rule = rule
        self.variant = variant
        self.output = output
        self.value = value
    }

    /// Wraps an error from libjq, naming the rule.
    init(_ error: JQError, rule: String, variant: String?) {
        let code: Code =
            switch error.code {
            case .runtimeError, .invalidJSON, .invalidUTF8, .inputTooLarge: .runtimeError
            case .halt: .halt
            case .timeout: .timeout
            case .tooDeep: .tooDeep
            case .busy: .busy
            case .compileError, .sandboxViolation: .compileError
            }
        let subject = RuleError.subject(rule: rule, variant: variant)
        let message =
            error.code == .timeout ? error.message.replacingFirst(rule, with: subject) : "\(subject): \(error.message)"
        self.init(code, message, rule: rule, variant: variant, value: error.value)
    }

    /// "rule `x`" or "rule `x` (variant `y`)".
    static func subject(rule: String, variant: String?) -> String {
        guard let variant, variant != RuleDefinition.defaultVariantName else { return "rule `\(rule)`" }
        return "rule `\(rule)` (\(variant == fallbackName ? "its fallback" : "variant `\(variant)`"))"
    }

    /// How results and errors name the fallback expression.
    public static let fallbackName = "fallback"

    public var description: String { "\(message) [\(code.rawValue)]" }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = self.firstRange(of: target) else { return self }
        return self.replacingCharacters(in: range, with: replacement)
    }
}
