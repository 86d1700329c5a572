import CommandKit
import Core
import FeatureKit
import JQ
import RuleEngine

/// `journey rules`: list the rules, or the kinds they can have.
enum RulesCommand: Command {
    static let spec = CommandSpec(
        name: "journey rules",
        overview: "List the rules with their kind, variants and file.",
        options: [
            CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(long: "kinds", help: "List the kinds (rule contracts) instead."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let json = CommonOptions.isJSON(arguments, spec: spec)
        if arguments.flag("kinds") {
            listKinds(json: json, io: io, engine: engine)
            return .success
        }
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        if json {
            let rules: [JSON] = ruleSet.rules.map { rule in
                var object: JSONObject = [
                    "id": .string(rule.id), "kind": .string(rule.kind.name),
                    "variants": .array(rule.variants.map { .string($0.name) }),
                    "file": .string(rule.location.file), "line": .number(Double(rule.location.line)),
                    "tests": .number(Double(rule.tests.count)), "has_fallback": .bool(rule.fallback != nil),
                    "budget_ms": .number(
                        Double(
                            rule.budget.components.seconds * 1000 + rule.budget.components.attoseconds
                                / 1_000_000_000_000_000)),
                ]
                object["experiment"] = rule.experiment.map(JSON.string) ?? .null
                object["description"] = rule.description.map(JSON.string) ?? .null
                return .object(object)
            }
            let report: JSONObject = ["revision": .string(ruleSet.revision), "rules": .array(rules)]
            io.stdout.line(JSON.object(report).compactText)
            return .success
        }
        let rows = ruleSet.rules.map { rule in
            [
                rule.id, rule.kind.name,
                rule.hasVariants ? rule.variants.map(\.name).joined(separator: ", ") : "-",
                "\(rule.location.file):\(rule.location.line)",
            ]
        }
        io.stdout.write(TextTable.table(header: ["RULE", "KIND", "VARIANTS", "FILE"], rows: rows))
        io.stdout.line("\(ruleSet.rules.count) rules (revision \(ruleSet.shortRevision))")
        return .success
    }

    private static func listKinds(json: Bool, io: CommandIO, engine: FeatureSet) {
        if json {
            let kinds: [JSON] = engine.ruleKinds.map { kind in
                [
                    "name": .string(kind.name), "summary": .string(kind.summary),
                    "input": .string(kind.inputDescription), "output": .string(kind.outputDescription),
                ]
            }
            io.stdout.line(JSON.array(kinds).compactText)
            return
        }
        let rows = engine.ruleKinds.map { [$0.name, $0.inputDescription, $0.outputDescription] }
        io.stdout.write(TextTable.table(header: ["KIND", "INPUT", "OUTPUT"], rows: rows))
    }

}
