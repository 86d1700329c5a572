import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// `journey assign EXPERIMENT --user ID`: which variation a user gets, the exact hash, the
/// range it fell in, and why.
enum AssignCommand: Command {
    static let spec = CommandSpec(
        name: "journey assign",
        overview: "Show a user's variation of an experiment, its hash and why.",
        discussion: """
            The hash is GrowthBook's (hash_value in JSON is the exact number of the formula), so it
            matches any GrowthBook SDK. With a store (--db, when the file exists) an assignment kept
            earlier wins (sticky) unless the experiment's bucket_version was raised. Nothing is
            written: the assignment is kept when a variant is first used by the engine.
            """,
        arguments: [ArgumentSpec(name: "experiment", help: "The experiment's key.")],
        options: [
            OptionSpec(long: "user", valueName: "id", help: "The user's id."),
            OptionSpec(long: "dog", valueName: "id", help: "The dog's id (for experiments hashing dog_id)."),
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let key = try CommonOptions.positionals(arguments, spec: spec, names: ["the experiment's key"])[0]
        let subject = ExperimentSubject(userID: arguments.values["user"]?.last, dogID: arguments.values["dog"]?.last)
        guard subject.userID != nil || subject.dogID != nil else {
            throw UsageError(message: "Give --user (and --dog for experiments that hash dog_id)", command: spec)
        }
        let now = try CommonOptions.now(arguments, spec: spec)
        let named: ExperimentInRules
        switch ExperimentInRules.load(key, arguments, spec: spec, io: io, engine: engine) {
        case .success(let found): named = found
        case .failure(let refusal): return refusal.code
        }
        let (catalog, experiment) = (named.catalog, named.experiment)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existingOrEmpty) { store in
            try ExperimentAssigner(catalog: catalog, readingFrom: store).assignment(key, subject: subject, now: now)
        } json: { assignment in
            assignment.json
        } text: { assignment in
            write(assignment, experiment: experiment, io: io)
        }
    }

    private static func write(_ assignment: Assignment, experiment: Experiment, io: CommandIO) {
        let key = assignment.experiment
        let value = assignment.subjectValue ?? "-"
        io.stdout.line(
            "experiment:  \(key) (\(experiment.hashAttribute) \(value), hash v\(experiment.hashVersion), seed \"\(experiment.seed)\")"
        )
        io.stdout.line("variation:   \(assignment.variation ?? "none (the default applies)")")
        io.stdout.line("hash value:  \(assignment.hashValue.map(format) ?? "-")")
        if let range = assignment.range {
            io.stdout.line("range:       [\(format(range.start)), \(format(range.end)))")
        }
        io.stdout.line("why:         \(assignment.reason.explanation)")
        if let at = assignment.assignedAt { io.stdout.line("assigned at: \(Timestamp.format(at))") }
    }

    static func format(_ n: Double) -> String {
        let text = String(format: "%.6f", n)
        var trimmed = text
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed += "0" }
        return trimmed
    }
}

/// `journey experiments`: every experiment with each variation's bucket range.
enum ExperimentsCommand: Command {
    static let spec = CommandSpec(
        name: "journey experiments",
        overview: "List the experiments with each variation's weight and bucket range.",
        discussion: "'journey experiments report KEY' shows an experiment's results.",
        options: [CommonOptions.rules, CommonOptions.plugins, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        let catalog = ExperimentCatalog(ruleSet: ruleSet)
        let users = ruleSet.rules.filter { $0.experiment != nil }
        if CommonOptions.isJSON(arguments, spec: spec) {
            let list: [JSON] = catalog.experiments.map { experiment in
                guard case .object(var object) = experiment.json else { return experiment.json }
                object["rules"] = .array(users.filter { $0.experiment == experiment.key }.map { .string($0.id) })
                return .object(object)
            }
            io.stdout.line(JSON.object(["experiments": .array(list)]).compactText)
            return .success
        }
        var rows: [[String]] = []
        for experiment in catalog.experiments {
            let ranges = experiment.ranges
            for (index, name) in experiment.variations.enumerated() {
                let weight = experiment.weights?[index] ?? 1 / Double(experiment.variations.count)
                rows.append([
                    index == 0 ? experiment.key : "", name, AssignCommand.format(weight),
                    "[\(AssignCommand.format(ranges[index].start)), \(AssignCommand.format(ranges[index].end)))",
                    index == 0 ? status(experiment) : "",
                    index == 0
                        ? "\(experiment.hashAttribute) v\(experiment.hashVersion) b\(experiment.bucketVersion)" : "",
                ])
            }
        }
        io.stdout.write(
            TextTable.table(header: ["EXPERIMENT", "VARIATION", "WEIGHT", "RANGE", "STATUS", "HASH"], rows: rows))
        io.stdout.line("\(catalog.experiments.count) experiments")
        return .success
    }

    private static func status(_ experiment: Experiment) -> String {
        var parts = [experiment.active ? "active" : "inactive"]
        if experiment.coverage < 1 { parts.append("coverage \(AssignCommand.format(experiment.coverage))") }
        if let endsAt = experiment.endsAt { parts.append("until \(Timestamp.format(endsAt))") }
        return parts.joined(separator: ", ")
    }
}

/// The experiment a command names, in the rules of `--rules` and `--plugins`.
struct ExperimentInRules {
    var loaded: RuleSetLoader.Result
    var catalog: ExperimentCatalog
    var experiment: Experiment

    /// Why there is none: the rules do not load (their diagnostics were printed), or they have
    /// no such experiment (said, with the closest key).
    struct Refusal: Error {
        var code: ExitCode
    }

    static func load(
        _ key: String, _ arguments: ParsedArguments, spec: CommandSpec, io: CommandIO, engine: FeatureSet
    ) -> Result<ExperimentInRules, Refusal> {
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .failure(Refusal(code: .ruleErrors))
        }
        let catalog = ExperimentCatalog(ruleSet: ruleSet)
        guard let experiment = catalog[key] else {
            io.stderr.line("Error: \(catalog.unknown(key)) (see 'journey experiments')")
            return .failure(Refusal(code: .failure))
        }
        return .success(ExperimentInRules(loaded: loaded, catalog: catalog, experiment: experiment))
    }
}
