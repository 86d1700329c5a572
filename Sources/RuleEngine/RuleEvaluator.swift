import Foundation
import JQ

/// How to evaluate a rule.
public struct EvaluationOptions: Sendable {
    /// The variant to evaluate; nil means the rule's default (its first variant).
    public var variant: String?
    /// What `now` returns in the rule (seconds since 1970); nil means the clock.
    public var now: Double?
    /// The budget; nil means the rule's own `budget` (250 ms unless set).
    public var timeout: Duration?
    /// Evaluate the rule's `fallback` expression instead of a variant.
    public var useFallback: Bool
    /// When the variant fails (error, timeout, broken contract), answer with the fallback.
    public var fallbackOnError: Bool

    public init(
        variant: String? = nil, now: Double? = nil, timeout: Duration? = nil, useFallback: Bool = false,
        fallbackOnError: Bool = false
    ) {
        self.variant = variant
        self.now = now
        self.timeout = timeout
        self.useFallback = useFallback
        self.fallbackOnError = fallbackOnError
    }
}

/// What a rule gave.
public struct RuleResult: Sendable {
    public var rule: String
    /// The variant evaluated (`default` for a single-expression rule, `fallback` for the fallback).
    public var variant: String
    /// Every output, in order.
    public var outputs: [JSON]
    /// The result under the kind's contract: the one output, or the kind's value for none.
    /// Nil for kinds with any number of outputs (`value`).
    public var value: JSON?
    /// `debug` and `stderr` messages.
    public var trace: [TraceEntry]
    /// Wall time of the evaluation.
    public var duration: Duration
    /// When the fallback answered because the variant failed: why it failed.
    public var primaryError: RuleError?

    /// Whether the fallback expression produced this result.
    public var usedFallback: Bool { variant == RuleError.fallbackName }
}

/// Evaluates the rules of one ``RuleSet`` on one thread at a time.
///
/// Holds one compiled program per variant and fallback, compiled on first use (or handed over
/// by the loader). Not `Sendable`: its programs own `jq_state`s; give each thread (or each
/// pooled worker) its own evaluator over the shared rule set.
public final class RuleEvaluator {
    public let ruleSet: RuleSet
    private var programs: [ProgramKey: Program]

    /// An evaluator that compiles each program the first time it is needed.
    public convenience init(ruleSet: RuleSet) {
        self.init(ruleSet: ruleSet, programs: [:])
    }

    init(ruleSet: RuleSet, programs: [ProgramKey: Program]) {
        self.ruleSet = ruleSet
        self.programs = programs
    }

    /// Evaluates rule `id` on `input`.
    /// - Throws: ``RuleError`` naming the rule: unknown rule or variant, input or output
    ///   outside the kind's contract, runtime error, halt, or timeout.
    public func evaluate(_ id: String, input: JV, options: EvaluationOptions = .init()) throws(RuleError) -> RuleResult {
        guard let rule = ruleSet.rule(id) else {
            var message = "no rule `\(id)`"
            if let suggestion = closestMatch(to: id, in: ruleSet.rules.map(\.id)) { message += "; did you mean `\(suggestion)`?" }
            throw RuleError(.unknownRule, message, rule: id)
        }
        return try evaluate(rule, input: input, options: options)
    }

    /// Evaluates `rule` on `input`.
    public func evaluate(_ rule: RuleDefinition, input: JV, options: EvaluationOptions = .init()) throws(RuleError) -> RuleResult {
        if options.useFallback {
            return try evaluateFallback(rule, input: input, options: options, because: nil)
        }
        let variant = try resolveVariant(rule, options.variant)
        do {
            return try run(rule, key: ProgramKey(rule: rule.id, variant: variant.name), expression: variant.expression,
                input: input, options: options)
        } catch {
            guard options.fallbackOnError, rule.fallback != nil, error.code != .inputContract else { throw error }
            return try evaluateFallback(rule, input: input, options: options, because: error)
        }
    }

    private func evaluateFallback(
        _ rule: RuleDefinition, input: JV, options: EvaluationOptions, because error: RuleError?
    ) throws(RuleError) -> RuleResult {
        guard let fallback = rule.fallback else {
            throw RuleError(.noFallback, "rule `\(rule.id)` has no fallback", rule: rule.id)
        }
        var result = try run(rule, key: ProgramKey(rule: rule.id, variant: nil), expression: fallback, input: input,
            options: options)
        result.primaryError = error
        return result
    }

    private func resolveVariant(_ rule: RuleDefinition, _ name: String?) throws(RuleError) -> Variant {
        guard let name else { return rule.defaultVariant }
        if let variant = rule.variant(named: name) { return variant }
        let names = rule.variants.map(\.name)
        throw RuleError(
            .unknownVariant,
            rule.hasVariants
                ? "rule `\(rule.id)` has no variant `\(name)`; its variants: \(listing(names, conjunction: "and"))"
                : "rule `\(rule.id)` has no variants (it has one expression)",
            rule: rule.id, variant: name)
    }

    private func program(_ key: ProgramKey, _ expression: Expression) throws(RuleError) -> Program {
        if let program = programs[key] { return program }
        do {
            let program = try Program(expression.source, name: key.rule, libraryDirectory: ruleSet.libraryDirectory)
            programs[key] = program
            return program
        } catch {
            throw RuleError(error, rule: key.rule, variant: key.variant ?? RuleError.fallbackName)
        }
    }

    private func run(
        _ rule: RuleDefinition, key: ProgramKey, expression: Expression, input: JV, options: EvaluationOptions
    ) throws(RuleError) -> RuleResult {
        let variantName = key.variant ?? RuleError.fallbackName
        let subject = RuleError.subject(rule: rule.id, variant: variantName)
        if let problem = rule.kind.checkInput(input) {
            throw RuleError(.inputContract, "\(subject): \(problem)", rule: rule.id, variant: variantName)
        }
        let program = try program(key, expression)
        let limit = rule.kind.cardinality == .many ? Int.max : 2
        let clock = ContinuousClock()
        let started = clock.now
        var outputs: [JSON] = []
        let trace: [TraceEntry]
        do {
            let report = try program.run(
                input, now: options.now ?? Date().timeIntervalSince1970, timeout: options.timeout ?? rule.budget
            ) { output in
                outputs.append(try output.json())
                return outputs.count < limit
            }
            trace = report.trace
        } catch let error as JQError {
            throw RuleError(error, rule: rule.id, variant: variantName)
        } catch {
            throw RuleError(.runtimeError, "\(subject): \(error)", rule: rule.id, variant: variantName)
        }
        let duration = clock.now - started
        let value = try checkContract(rule, outputs: outputs, subject: subject, variant: variantName)
        return RuleResult(
            rule: rule.id, variant: variantName, outputs: outputs, value: value, trace: trace, duration: duration,
            primaryError: nil)
    }

    /// Applies the kind's contract to the outputs; returns the result value.
    private func checkContract(
        _ rule: RuleDefinition, outputs: [JSON], subject: String, variant: String
    ) throws(RuleError) -> JSON? {
        let kind = rule.kind
        func broken(_ message: String, _ output: JSON?) -> RuleError {
            RuleError(
                .outputContract, "\(subject) broke the \(kind.name) contract: \(message)", rule: rule.id,
                variant: variant, output: output)
        }
        switch kind.cardinality {
        case .many:
            for output in outputs {
                if let problem = kind.checkOutput(output) { throw broken("\(problem), got \(output.truncatedText())", output) }
            }
            return nil
        case .one, .atMostOne:
            if outputs.count > 1 {
                throw broken(
                    "expected one output, got several: \(outputs[0].truncatedText(80)), \(outputs[1].truncatedText(80)), …",
                    .array(outputs))
            }
            guard let output = outputs.first else {
                if case .atMostOne(let whenEmpty) = kind.cardinality { return whenEmpty }
                throw broken("expected one output (\(kind.outputDescription)), got none", nil)
            }
            if let problem = kind.checkOutput(output) {
                throw broken("\(problem), got \(output.typeName) \(output.truncatedText())", output)
            }
            return output
        }
    }
}
