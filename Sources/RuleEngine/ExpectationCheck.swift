extension LoadContext {
    /// Refuses inline tests that expect a result their input cannot give under the kind's
    /// ``RuleKind/checkOutputAgainstInput`` (a recommendation test expecting a block its input
    /// lacks): such a test can never pass.
    func checkExpectationsAgainstInputs(_ rules: [RuleDefinition]) {
        for rule in rules {
            guard let check = rule.kind.checkOutputAgainstInput else { continue }
            for test in rule.tests {
                guard case .value(let expected) = test.expectation, let problem = check(expected, test.input) else {
                    continue
                }
                collector.error(
                    "invalid_expectation", "this test can never pass: it expects \(problem)", at: test.location,
                    rule: rule.id)
            }
        }
    }
}
