import Core
import RuleEngine

/// A rule whose behaviour changed while its tests stayed the same is tested only for what it
/// did before: a warning names the rule and its tests, so that the author adds one for the
/// change. It says nothing of whether they pass: the check as one types runs no tests (Run
/// tests and the publish gates do), and a warning that said "they pass" next to a failing
/// one would be believed.
enum UnchangedTestsCheck {
    static func diagnostics(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic] {
        candidate.rules.compactMap { rule in
            guard let before = parent.rule(rule.id), let digest = candidate.digest(of: rule.id),
                parent.digest(of: rule.id) != digest, outline(before.tests) == outline(rule.tests)
            else { return nil }
            let tests = rule.tests.map { "`\($0.name)`" }.joined(separator: ", ")
            let values = changedValues(from: before, to: rule)
            let message =
                if let values {
                    rule.tests.isEmpty
                        ? "rule `\(rule.id)` reads new parameter values (\(values)) and has no tests"
                        : "rule `\(rule.id)` reads new parameter values (\(values)); its tests (\(tests)) run with them, and those that depend on a value pin it with `params:`"
                } else if rule.tests.isEmpty {
                    "rule `\(rule.id)` changed and has no tests: add one for what it does now"
                } else {
                    "rule `\(rule.id)` changed but its tests (\(tests)) did not: they check what it did before; add a test for what changed, and Run tests to see which pass"
                }
            return Diagnostic(.warning, code: "tests_unchanged", message, at: rule.location, rule: rule.id)
        }
    }

    /// The parameters whose values changed (`by_branch_prefers`), when nothing else of the rule
    /// did: its programs, kind and events are the same.
    private static func changedValues(from before: RuleDefinition, to after: RuleDefinition) -> String? {
        guard before.parameters != after.parameters, before.kind.name == after.kind.name, before.events == after.events,
            before.variants.map(\.name) == after.variants.map(\.name),
            before.variants.map(\.expression.source) == after.variants.map(\.expression.source),
            before.fallback?.source == after.fallback?.source
        else { return nil }
        let names = (after.parameters ?? [:]).keys.filter { before.parameters?[$0] != after.parameters?[$0] }
        return names.map { "`\($0)`" }.joined(separator: ", ")
    }

    /// What a test checks, without where it is written.
    private static func outline(_ tests: [RuleTest]) -> [JSON] {
        tests.map { test in
            let expectation: JSON =
                switch test.expectation {
                case .value(let value): ["value": value]
                case .outputs(let outputs): ["outputs": .array(outputs)]
                case .error(let text): ["error": .string(text)]
                }
            return [
                "name": .string(test.name), "input": test.input, "variant": test.variant.map(JSON.string) ?? .null,
                "now": test.now.map(JSON.number) ?? .null, "expect": expectation, "fallback": .bool(test.usesFallback),
            ]
        }
    }
}
