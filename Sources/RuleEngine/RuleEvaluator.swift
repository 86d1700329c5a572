import Core
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
    /// Who the evaluation is for: with a ``VariantChooser`` on the evaluator, a rule with an
    /// experiment evaluates the variant this subject is assigned (when `variant` is nil).
    public var subject: ExperimentSubject?
    /// A check of the result beyond the kind's contract, by a caller who knows what exists (the
    /// blocks of the dog's journey): nil when the result is fine, else the name it gives that
    /// does not exist, described ("block id `x`, which is not a block of …"). A result
    /// that fails it is an `unknown_reference` error (answered by the fallback with
    /// ``fallbackOnError``), told to the observer like any failure.
    public var outputCheck: OutputCheck?

    /// Nil when a result (the kind's value) names only what exists, else the name that does not.
    public typealias OutputCheck = @Sendable (JSON) -> String?

    public init(
        variant: String? = nil, now: Double? = nil, timeout: Duration? = nil, useFallback: Bool = false,
        fallbackOnError: Bool = false, subject: ExperimentSubject? = nil, outputCheck: OutputCheck? = nil
    ) {
        self.variant = variant
        self.now = now
        self.timeout = timeout
        self.useFallback = useFallback
        self.fallbackOnError = fallbackOnError
        self.subject = subject
        self.outputCheck = outputCheck
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

/// Told about every evaluation of an evaluator (metrics, the process watchdog's records, the
/// quarantine). Called on the evaluating thread; keep it cheap.
public protocol EvaluationObserver: AnyObject {
    /// An evaluation of `rule` (its variant `variant`, or `fallback`) is about to start.
    func willEvaluate(_ rule: RuleDefinition, variant: String)
    /// The evaluation ended after `duration`: with `error`, or nil when it gave a result.
    func didEvaluate(_ rule: RuleDefinition, variant: String, input: JV, duration: Duration, error: RuleError?)
}

/// Evaluates the rules of one ``RuleSet`` on one thread at a time.
///
/// Holds one compiled program per variant and fallback, compiled on first use (or handed over
/// by the loader). Not `Sendable`: its programs own `jq_state`s; give each thread (or each
/// pooled worker) its own evaluator over the shared rule set.
public final class RuleEvaluator {
    public let ruleSet: RuleSet
    /// Programs compiled during the load, not yet claimed by a ``CompiledRule``.
    private var handedOver: [ProgramKey: Program]
    private var compiled: [String: CompiledRule] = [:]
    /// Rules answered by their fallback without being evaluated (they ran away before), by id.
    /// A quarantined rule without a fallback fails with `quarantined`.
    public var quarantined: Set<String> = []
    /// Rules set aside for some inputs only: rule id → the quarantine keys of those inputs (see
    /// ``quarantineKey(of:)``). For any other input the rule is evaluated as usual.
    public var quarantinedInputs: [String: Set<String>] = [:]
    /// Whose input the evaluations are for now (`dog:<id>`, `user:<id>`), set by the service for
    /// the span of one request; nil: each input is keyed by its own digest.
    public var inputKey: String?
    /// Told about every evaluation (not retained).
    public weak var observer: (any EvaluationObserver)?
    /// Chooses the variant of rules with an experiment, for evaluations that name a subject.
    public var variantChooser: (any VariantChooser)?
    /// Told about every evaluation while set (one answer's provenance).
    public var decisionLog: DecisionLog?

    /// An evaluator that compiles each program the first time it is needed.
    public convenience init(ruleSet: RuleSet) {
        self.init(ruleSet: ruleSet, programs: [:])
    }

    init(ruleSet: RuleSet, programs: [ProgramKey: Program]) {
        self.ruleSet = ruleSet
        self.handedOver = programs
    }

    /// Evaluates rule `id` on `input`.
    /// - Throws: ``RuleError`` naming the rule: unknown rule or variant, input or output
    ///   outside the kind's contract, runtime error, halt, or timeout.
    public func evaluate(_ id: String, input: JV, options: EvaluationOptions = .init()) throws(RuleError) -> RuleResult
    {
        let compiledRule = try compiledRule(id: id)
        return try evaluateLogged(
            compiledRule.rule, compiledRule, input: input, options: options, keepsValues: false
        ).result
    }

    /// Evaluates `rule` on `input`.
    public func evaluate(
        _ rule: RuleDefinition, input: JV, options: EvaluationOptions = .init()
    ) throws(RuleError) -> RuleResult {
        try evaluateLogged(rule, compiledRule(rule), input: input, options: options, keepsValues: false).result
    }

    /// Evaluates rule `id` on `input` like ``evaluate(_:input:options:)`` and gives `read` the
    /// result as libjq returned it (the one output, the kind's value for none, or the array of
    /// the outputs of a kind with any number), returning what `read` returns. Where the kind
    /// accepts the outputs at a glance (``RuleKind/acceptsOutput``), nothing is converted to
    /// ``JSON``: for callers that need a little of a large result, such as how many records an
    /// auto-complete found. `read` must not keep the value beyond the call.
    public func evaluate<Value>(
        _ id: String, input: JV, options: EvaluationOptions = .init(), reading read: (JV) -> Value
    ) throws(RuleError) -> Value {
        let compiledRule = try compiledRule(id: id)
        let evaluated = try evaluateLogged(
            compiledRule.rule, compiledRule, input: input, options: options, keepsValues: true)
        switch compiledRule.rule.kind.cardinality {
        case .many: return read(JV(array: evaluated.values))
        case .one, .atMostOne:
            if let output = evaluated.values.first { return read(output) }
            return read(JV(evaluated.result.value ?? .null))
        }
    }

    /// The compiled programs of the rule named `id`, with its definition: one look-up once
    /// the rule has been evaluated (or prepared) here.
    private func compiledRule(id: String) throws(RuleError) -> CompiledRule {
        if let existing = compiled[id] { return existing }
        return compiledRule(try rule(id))
    }

    /// The rule named `id`.
    private func rule(_ id: String) throws(RuleError) -> RuleDefinition {
        if let rule = ruleSet.rule(id) { return rule }
        var message = "no rule `\(id)`"
        if let suggestion = closestMatch(to: id, in: ruleSet.rules.map(\.id)) {
            message += "; did you mean `\(suggestion)`?"
        }
        throw RuleError(.unknownRule, message, rule: id)
    }

    /// An evaluation's result and, when asked for (`keepsValues`), its outputs as libjq values;
    /// the result's outputs are then converted only where the contract needed them.
    private struct Evaluated {
        var result: RuleResult
        var values: [JV] = []
    }

    private func evaluateLogged(
        _ rule: RuleDefinition, _ compiledRule: CompiledRule, input: JV, options: EvaluationOptions,
        keepsValues: Bool
    ) throws(RuleError) -> Evaluated {
        guard let log = decisionLog else {
            return try evaluateUnlogged(
                rule, compiledRule, input: input, options: options, keepsValues: keepsValues)
        }
        do {
            let evaluated = try evaluateUnlogged(
                rule, compiledRule, input: input, options: options, keepsValues: keepsValues)
            var logged = evaluated.result
            if log.detailed, logged.outputs.count < evaluated.values.count {  // read unconverted
                logged.outputs = evaluated.values.compactMap { try? $0.json() }
            }
            log.record(rule, variant: logged.variant, error: nil, input: input, result: logged, options: options)
            return evaluated
        } catch {
            log.record(rule, variant: nil, error: error, input: input, result: nil, options: options)
            throw error
        }
    }

    private func evaluateUnlogged(
        _ rule: RuleDefinition, _ compiledRule: CompiledRule, input: JV, options: EvaluationOptions,
        keepsValues: Bool
    ) throws(RuleError) -> Evaluated {
        if options.useFallback {
            return try evaluateFallback(
                rule, compiledRule, input: input, options: options, keepsValues: keepsValues, because: nil)
        }
        if let scope = quarantineScope(of: rule, input: input) {
            let subject = RuleError.subject(rule: rule.id, variant: nil)
            let error = RuleError(
                .quarantined,
                "\(subject) is quarantined \(scope) (it ran away before); it answers with its fallback until it changes or an admin lifts it",
                rule: rule.id)
            guard rule.fallback != nil else { throw error }
            return try evaluateFallback(
                rule, compiledRule, input: input, options: options, keepsValues: keepsValues, because: error)
        }
        var variantName = options.variant
        if variantName == nil, let experiment = rule.experiment, let subject = options.subject,
            let chooser = variantChooser
        {
            do {
                variantName = try chooser.variation(
                    of: experiment, subject: subject, now: options.now ?? Date().timeIntervalSince1970)
            } catch {
                throw RuleError(
                    .assignmentFailed,
                    "rule `\(rule.id)`: the assignment to experiment `\(experiment)` failed: \(error)",
                    rule: rule.id)
            }
        }
        let variant = try resolveVariant(rule, variantName)
        do {
            let program = try compiledRule.program(variant: variant, of: rule)
            return try run(
                rule, compiledRule, program: program, variantName: rule.variants[variant].name, input: input,
                options: options, keepsValues: keepsValues)
        } catch {
            guard options.fallbackOnError, rule.fallback != nil, error.code != .inputContract else { throw error }
            return try evaluateFallback(
                rule, compiledRule, input: input, options: options, keepsValues: keepsValues, because: error)
        }
    }

    /// The key a quarantine of `input` is recorded under: ``inputKey``, else the input's SHA-256.
    public func quarantineKey(of input: JV) -> String {
        if let inputKey { return inputKey }
        return "sha256:" + SHA256.hex((try? input.json())?.compactText ?? "")
    }

    /// Whether `rule` is quarantined for everyone or for `input`: "for everyone", "for
    /// input `dog:x`", or nil when it is not. Keys an input by digest only when it has to.
    public func quarantineScope(of rule: RuleDefinition, input: JV) -> String? {
        if !quarantined.isEmpty, quarantined.contains(rule.id) { return "for everyone" }
        guard !quarantinedInputs.isEmpty, let keys = quarantinedInputs[rule.id] else { return nil }
        let key = quarantineKey(of: input)
        return keys.contains(key) ? "for input `\(key)`" : nil
    }

    /// Takes over the compiled programs of `previous` for every rule whose digest did not change,
    /// and compiles the others now. Call it on the thread that owns both evaluators; `previous`
    /// must not be used afterwards. Returns how many programs were taken over and compiled.
    @discardableResult
    public func adoptPrograms(from previous: RuleEvaluator) -> (reused: Int, compiled: Int) {
        var reused = 0
        var changed: [RuleDefinition] = []
        for rule in ruleSet.rules {
            guard let digest = ruleSet.digest(of: rule.id), previous.ruleSet.digest(of: rule.id) == digest,
                compiled[rule.id] == nil
            else {
                changed.append(rule)
                continue
            }
            let old = previous.compiled[rule.id]
            for variant in rule.variants {
                let key = ProgramKey(rule: rule.id, variant: variant.name)
                let index = previous.ruleSet.rule(rule.id)?.variants.firstIndex { $0.name == variant.name }
                if let program = index.flatMap({ old?.variants[$0] }) ?? previous.handedOver[key] {
                    handedOver[key] = program
                    reused += 1
                }
            }
            let fallbackKey = ProgramKey(rule: rule.id, variant: nil)
            if let program = old?.fallback ?? previous.handedOver[fallbackKey] {
                handedOver[fallbackKey] = program
                reused += 1
            }
        }
        return (reused, prepare(changed))
    }

    /// Compiles every variant and fallback of `rules` now (libjq 1.6 takes milliseconds per
    /// program), so that the first evaluations do not pay for it; returns how many it compiled.
    @discardableResult
    public func prepare(_ rules: [RuleDefinition]) -> Int {
        var count = 0
        for rule in rules {
            let compiledRule = compiledRule(rule)
            for index in rule.variants.indices where compiledRule.variants[index] == nil {
                if (try? compiledRule.program(variant: index, of: rule)) != nil { count += 1 }
            }
            if rule.fallback != nil, compiledRule.fallback == nil {
                if (try? compiledRule.fallbackProgram(of: rule)) != nil { count += 1 }
            }
        }
        return count
    }

    private func compiledRule(_ rule: RuleDefinition) -> CompiledRule {
        if let existing = compiled[rule.id] { return existing }
        let made = CompiledRule(rule: rule, libraryDirectory: ruleSet.libraryDirectory)
        for (index, variant) in rule.variants.enumerated() {
            made.variants[index] = handedOver.removeValue(forKey: ProgramKey(rule: rule.id, variant: variant.name))
        }
        made.fallback = handedOver.removeValue(forKey: ProgramKey(rule: rule.id, variant: nil))
        compiled[rule.id] = made
        return made
    }

    private func evaluateFallback(
        _ rule: RuleDefinition, _ compiledRule: CompiledRule, input: JV, options: EvaluationOptions,
        keepsValues: Bool, because error: RuleError?
    ) throws(RuleError) -> Evaluated {
        let program = try compiledRule.fallbackProgram(of: rule)
        var evaluated = try run(
            rule, compiledRule, program: program, variantName: RuleError.fallbackName, input: input, options: options,
            keepsValues: keepsValues)
        evaluated.result.primaryError = error
        return evaluated
    }

    /// The index of the variant to evaluate.
    private func resolveVariant(_ rule: RuleDefinition, _ name: String?) throws(RuleError) -> Int {
        guard let name else { return 0 }
        if let index = rule.variants.firstIndex(where: { $0.name == name }) { return index }
        let names = rule.variants.map(\.name)
        throw RuleError(
            .unknownVariant,
            rule.hasVariants
                ? "rule `\(rule.id)` has no variant `\(name)`; its variants: \(listing(names, conjunction: "and"))"
                : "rule `\(rule.id)` has no variants (it has one expression)",
            rule: rule.id, variant: name)
    }

    private func run(
        _ rule: RuleDefinition, _ compiledRule: CompiledRule, program: Program, variantName: String, input: JV,
        options: EvaluationOptions, keepsValues: Bool
    ) throws(RuleError) -> Evaluated {
        if let problem = rule.kind.checkInput(input, keys: compiledRule.inputKeys) {
            let subject = RuleError.subject(rule: rule.id, variant: variantName)
            throw RuleError(.inputContract, "\(subject): \(problem)", rule: rule.id, variant: variantName)
        }
        if let events = compiledRule.events, case .atMostOne(let whenEmpty) = rule.kind.cardinality,
            let type = input.string(at: compiledRule.eventTypeKeys), !events.contains(type)
        {
            // Not one of the rule's events: it gives nothing, without being evaluated.
            return Evaluated(
                result: RuleResult(
                    rule: rule.id, variant: variantName, outputs: [], value: whenEmpty, trace: [], duration: .zero,
                    primaryError: nil))
        }
        let limit = rule.kind.cardinality == .many ? Int.max : 2
        let clock = ContinuousClock()
        let started = clock.now
        var values: [JV] = []
        var outputs: [JSON] = []
        // Whether the outputs fulfil the contract as libjq gave them, unconverted (the reader has them).
        var acceptedAsGiven = false
        let trace: [TraceEntry]
        let observer = self.observer
        observer?.willEvaluate(rule, variant: variantName)
        do {
            let report = try program.run(
                input, now: options.now ?? Date().timeIntervalSince1970, timeout: options.timeout ?? rule.budget
            ) { output in
                // Converted as they come, unless the caller reads them as libjq gave them.
                if keepsValues { values.append(output) } else { outputs.append(try output.json()) }
                return values.count + outputs.count < limit
            }
            trace = report.trace
            acceptedAsGiven = keepsValues && accepted(values, of: rule.kind, options: options)
            if keepsValues, !acceptedAsGiven {
                outputs = try values.map { output throws(JQError) in try output.json() }
            }
        } catch let error as JQError {
            let failure = RuleError(error, rule: rule.id, variant: variantName)
            observer?.didEvaluate(
                rule, variant: variantName, input: input, duration: clock.now - started, error: failure)
            throw failure
        } catch {
            let subject = RuleError.subject(rule: rule.id, variant: variantName)
            let failure = RuleError(.runtimeError, "\(subject): \(error)", rule: rule.id, variant: variantName)
            observer?.didEvaluate(
                rule, variant: variantName, input: input, duration: clock.now - started, error: failure)
            throw failure
        }
        let duration = clock.now - started
        if acceptedAsGiven {
            observer?.didEvaluate(rule, variant: variantName, input: input, duration: duration, error: nil)
            return Evaluated(
                result: RuleResult(
                    rule: rule.id, variant: variantName, outputs: [], value: nil, trace: trace, duration: duration,
                    primaryError: nil), values: values)
        }
        let value: JSON?
        do throws(RuleError) {
            value = try checkContract(rule, outputs: outputs, variant: variantName)
            if let check = options.outputCheck, let value, let problem = check(value) {
                let subject = RuleError.subject(rule: rule.id, variant: variantName)
                throw RuleError(
                    .unknownReference, "\(subject) returned \(problem)", rule: rule.id, variant: variantName,
                    output: value)
            }
        } catch {
            observer?.didEvaluate(rule, variant: variantName, input: input, duration: duration, error: error)
            throw error
        }
        observer?.didEvaluate(rule, variant: variantName, input: input, duration: duration, error: nil)
        return Evaluated(
            result: RuleResult(
                rule: rule.id, variant: variantName, outputs: outputs, value: value, trace: trace, duration: duration,
                primaryError: nil), values: keepsValues ? values : [])
    }

    /// Whether `outputs` fulfil `kind`'s contract at a glance (``RuleKind/acceptsOutput``), so
    /// that they need not be converted to be checked: as many as the kind allows, each accepted,
    /// and no check of the caller's that reads ``JSON``.
    private func accepted(_ outputs: [JV], of kind: RuleKind, options: EvaluationOptions) -> Bool {
        guard let accepts = kind.acceptsOutput, options.outputCheck == nil, !outputs.isEmpty else { return false }
        if kind.cardinality != .many, outputs.count > 1 { return false }
        return outputs.allSatisfy(accepts)
    }

    /// Applies the kind's contract to the outputs; returns the result value.
    private func checkContract(
        _ rule: RuleDefinition, outputs: [JSON], variant: String
    ) throws(RuleError) -> JSON? {
        let kind = rule.kind
        func broken(_ message: String, _ output: JSON?) -> RuleError {
            let subject = RuleError.subject(rule: rule.id, variant: variant)
            return RuleError(
                .outputContract, "\(subject) broke the \(kind.name) contract: \(message)", rule: rule.id,
                variant: variant, output: output)
        }
        switch kind.cardinality {
        case .many:
            for output in outputs {
                if let problem = kind.checkOutput(output) {
                    throw broken("\(problem), got \(output.truncatedText())", output)
                }
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
