import CommandKit
import Core
import FeatureKit
import RuleEngine
import Store

/// `journey experiments report KEY`: an experiment's results from the store.
enum ExperimentReportCommand: Command {
    static let spec = CommandSpec(
        name: "journey experiments report",
        overview: "Show an experiment's results: users, conversions and differences per metric.",
        discussion: """
            Users are those who used a variation (experiment_viewed), counted from their first
            exposure; users exposed to more than one variation are counted and left out. Per metric
            and guardrail: conversions within its window, the rate, and each variation's difference
            to the control, absolute (percentage points) and relative, with a 95% confidence interval
            and the two-sided p-value of the relative difference (gbstats' frequentist t-test; JSON
            has both). The split is checked against the weights (sample ratio mismatch when
            p < 0.001; not checked while a variation has fewer than 8 users).
            """,
        arguments: [ArgumentSpec(name: "experiment", help: "The experiment's key.")],
        options: [
            OptionSpec(long: "now", valueName: "iso8601", help: "Count what happened until then (default: the clock)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let key = try CommonOptions.positionals(arguments, spec: spec, names: ["the experiment's key"])[0]
        let now = try CommonOptions.now(arguments, spec: spec)
        let named: ExperimentInRules
        switch ExperimentInRules.load(key, arguments, spec: spec, io: io, engine: engine) {
        case .success(let found): named = found
        case .failure(let refusal): return refusal.code
        }
        guard let evaluator = named.loaded.evaluator else { return .ruleErrors }
        let experiment = named.experiment
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            try ExperimentReport(experiment: experiment, store: store, evaluator: evaluator, now: now)
        } json: { report in
            report.json
        } text: { report in
            io.stdout.write(report.text)
        }
    }
}
