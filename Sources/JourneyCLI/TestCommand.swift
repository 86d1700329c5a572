import CommandKit
import Core
import FeatureKit
import JQ
import RuleEngine

/// `journey test`: run every inline rule test.
enum TestCommand: Command {
    static let spec = CommandSpec(
        name: "journey test",
        overview: "Run every inline rule test.",
        discussion: """
            Failures show the rule, the test, where it is written, and a diff of the expected (-)
            and actual (+) results. The last line reads `N passed, N failed`. Exits with 3 when a
            test fails, 2 when the rules do not load.
            """,
        options: [
            CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(long: "run", valueName: "regex", help: "Run only tests whose `rule › test` name matches."),
            OptionSpec(long: "verbose", short: "v", help: "List every test, with its time and trace."),
            OptionSpec(
                long: "timeout", valueName: "duration", help: "Fail a test that runs longer.", defaultValue: "5s"),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let timeoutText = arguments.value("timeout", spec: spec) ?? "5s"
        guard let timeout = DurationText.parse(timeoutText), timeout > .zero else {
            throw UsageError(message: "The value '\(timeoutText)' is not a duration such as 5s or 500ms", command: spec)
        }
        var filter: Regex<AnyRegexOutput>?
        if let pattern = arguments.value("run", spec: spec) {
            do {
                filter = try Regex(pattern)
            } catch {
                throw UsageError(message: "The value '\(pattern)' is not a valid regular expression", command: spec)
            }
        }
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else { return .ruleErrors }
        let json = CommonOptions.isJSON(arguments, spec: spec)
        let verbose = arguments.flag("verbose")
        let runner = RuleTestRunner(evaluator: evaluator, filter: filter, timeout: timeout)
        let outcomes = runner.run { outcome in
            if !json { io.stdout.write(text(outcome, verbose: verbose)) }
        }
        let failed = outcomes.filter { $0.status == .failed }.count
        let passed = outcomes.count - failed
        if json {
            let report: JSONObject = [
                "revision": .string(evaluator.ruleSet.revision), "passed": .number(Double(passed)),
                "failed": .number(Double(failed)), "tests": .array(outcomes.map(self.json)),
            ]
            io.stdout.line(JSON.object(report).compactText)
        } else {
            io.stdout.line("\(passed) passed, \(failed) failed")
        }
        if outcomes.isEmpty, let pattern = arguments.value("run", spec: spec) {
            io.stderr.line("Error: no test matches --run '\(pattern)'")
            return .failure
        }
        return failed > 0 ? .testsFailed : .success
    }

    static func text(_ outcome: TestOutcome, verbose: Bool) -> String {
        let time = milliseconds(outcome.duration)
        guard outcome.status == .failed else {
            guard verbose else { return "" }
            var text = "PASS \(outcome.fullName) (\(time) ms)\n"
            for entry in outcome.trace { text += "  \(entry.kind.rawValue): \(entry.value.compactText)\n" }
            return text
        }
        var text = "FAIL \(outcome.fullName)\n  at \(outcome.location)\n  \(outcome.message ?? "failed")\n"
        if let expected = outcome.expected, let actual = outcome.actual {
            text += "  expected (-) and actual (+):\n"
            for line in TextDiff.lines(expected: expected.prettyText, actual: actual.prettyText) {
                text += "    \(line.text)\n"
            }
        } else if let actual = outcome.actual {
            text += "  actual: \(actual.truncatedText(300))\n"
        }
        for entry in outcome.trace { text += "  \(entry.kind.rawValue): \(entry.value.compactText)\n" }
        return text
    }

    static func json(_ outcome: TestOutcome) -> JSON { outcome.json }

    /// Milliseconds with three decimals, e.g. `0.042`.
    static func milliseconds(_ duration: Duration) -> String { TestOutcome.milliseconds(duration) }
}
