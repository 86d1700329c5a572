import Core
import Foundation
import JQ

/// The outcome of one inline test.
public struct TestOutcome: Sendable {
    public enum Status: String, Sendable { case passed, failed }

    public var rule: String
    public var test: String
    public var location: SourceLocation
    public var status: Status
    /// Why it failed.
    public var message: String?
    /// For a wrong value: what the test expected and what the rule gave.
    public var expected: JSON?
    public var actual: JSON?
    public var duration: Duration
    /// `debug`/`stderr` messages of the evaluation.
    public var trace: [TraceEntry]

    /// `rule › test`
    public var fullName: String { "\(rule) › \(test)" }

    /// A failure with no result to show: `message` says why (its process ended while it ran).
    public static func failed(rule: String, test: String, at location: SourceLocation, message: String)
        -> TestOutcome
    {
        TestOutcome(
            rule: rule, test: test, location: location, status: .failed, message: message, expected: nil,
            actual: nil, duration: .zero, trace: [])
    }
}

/// Runs the inline tests of a rule set.
public struct RuleTestRunner {
    public var evaluator: RuleEvaluator
    /// Only tests whose `rule › test` name (or rule id) matches run.
    public var filter: Regex<AnyRegexOutput>?
    /// The budget of each test's evaluation (default 5 s); a test past it fails.
    public var timeout: Duration

    public init(evaluator: RuleEvaluator, filter: Regex<AnyRegexOutput>? = nil, timeout: Duration = .seconds(5)) {
        self.evaluator = evaluator
        self.filter = filter
        self.timeout = timeout
    }

    /// Runs every selected test in file order, saying each as it starts and as it finishes.
    public func run(
        onOutcome: (TestOutcome) -> Void = { _ in }, onStart: (RuleTest, RuleDefinition) -> Void = { _, _ in }
    ) -> [TestOutcome] {
        var outcomes: [TestOutcome] = []
        for rule in evaluator.ruleSet.rules {
            for test in rule.tests where isSelected(rule: rule.id, test: test.name) {
                onStart(test, rule)
                let outcome = run(test, of: rule)
                onOutcome(outcome)
                outcomes.append(outcome)
            }
        }
        return outcomes
    }

    private func isSelected(rule: String, test: String) -> Bool {
        guard let filter else { return true }
        return "\(rule) › \(test)".contains(filter) || "\(rule)/\(test)".contains(filter)
    }

    /// Runs one test.
    public func run(_ test: RuleTest, of rule: RuleDefinition) -> TestOutcome {
        var outcome = TestOutcome(
            rule: rule.id, test: test.name, location: test.location, status: .failed, message: nil, expected: nil,
            actual: nil, duration: .zero, trace: [])
        // A test that sets parameters evaluates programs compiled with its values, by an
        // evaluator of its own (programs are kept by rule id).
        let rule = test.parameters.map { rule.with(parameters: $0) } ?? rule
        let evaluator = test.parameters == nil ? evaluator : RuleEvaluator(ruleSet: evaluator.ruleSet)
        // The input as the engine gives it: narrowed to what the rule declares it `reads`, a time
        // window by the `now` the rule is evaluated at.
        let now = rule.evaluationNow(test.now)
        var options = EvaluationOptions(
            variant: test.variant, now: now, timeout: timeout, useFallback: test.usesFallback)
        let input = rule.selectingInput(test.input, now: now)
        // A result must name only what the test's input has (a recommendation, one of its blocks).
        if let check = rule.kind.checkOutputAgainstInput {
            options.outputCheck = { output in check(output, input) }
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result: Result<RuleResult, RuleError>
        do {
            result = .success(try evaluator.evaluate(rule, input: JV(input), options: options))
        } catch {
            result = .failure(error)
        }
        outcome.duration = clock.now - started

        switch (test.expectation, result) {
        case (.error(let expected), .failure(let error)):
            if error.code.rawValue == expected || error.message.contains(expected) {
                outcome.status = .passed
            } else {
                outcome.message =
                    "expected an error matching \"\(expected)\", got: \(error.message) [\(error.code.rawValue)]"
            }
        case (.error(let expected), .success(let value)):
            outcome.trace = value.trace
            outcome.message = "expected an error matching \"\(expected)\", but the rule succeeded"
            outcome.actual = value.value ?? .array(value.outputs)
        case (_, .failure(let error)):
            outcome.message =
                error.code == .timeout
                ? "timed out: \(error.message) (test `\(test.name)` at \(test.location))"
                : "\(error.message) [\(error.code.rawValue)]"
        case (.value(let expected), .success(let value)):
            outcome.trace = value.trace
            let actual: JSON? = value.value ?? (value.outputs.count == 1 ? value.outputs[0] : nil)
            guard let actual else {
                outcome.message = "expected one output, got \(value.outputs.count); list them with `expect_outputs`"
                outcome.actual = .array(value.outputs)
                outcome.expected = expected
                break
            }
            if actual == expected {
                outcome.status = .passed
            } else {
                outcome.message = "wrong result"
                outcome.expected = expected
                outcome.actual = actual
            }
        case (.outputs(let expected), .success(let value)):
            outcome.trace = value.trace
            if value.outputs == expected {
                outcome.status = .passed
            } else {
                outcome.message = "wrong outputs"
                outcome.expected = .array(expected)
                outcome.actual = .array(value.outputs)
            }
        }
        return outcome
    }
}
