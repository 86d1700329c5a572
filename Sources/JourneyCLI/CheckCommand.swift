import CommandKit
import Core
import FeatureKit
import JQ
import RuleEngine

/// `journey check`: load and compile everything, print every diagnostic.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "journey check",
        overview: "Load and compile every rule; print every diagnostic.",
        discussion: """
            Prints each problem as `path:line:col: error: message [code]`, like a compiler, and
            exits with 2 when there are errors. Warnings alone do not fail the check.
            """,
        options: [CommonOptions.rules, CommonOptions.plugins, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let result = CommonOptions.loader(arguments, spec: spec, engine: engine).load()
        let diagnostics = result.diagnostics
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count

        if CommonOptions.isJSON(arguments, spec: spec) {
            var report: JSONObject = ["ok": .bool(result.ruleSet != nil)]
            report["revision"] = result.ruleSet.map { .string($0.revision) } ?? .null
            report["rules"] = .number(Double(result.ruleSet?.rules.count ?? 0))
            report["tests"] = .number(Double(result.ruleSet?.testCount ?? 0))
            report["errors"] = .number(Double(errors))
            report["warnings"] = .number(Double(warnings))
            report["diagnostics"] = .array(diagnostics.map(DiagnosticText.json))
            io.stdout.line(JSON.object(report).compactText)
        } else {
            io.stdout.write(DiagnosticText.render(diagnostics))
            if let ruleSet = result.ruleSet {
                io.stdout.line(
                    "ok: \(ruleSet.rules.count) rules, \(ruleSet.testCount) tests, \(ruleSet.files.count) files (revision \(ruleSet.shortRevision))"
                        + (warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : ""))
            } else {
                io.stdout.line(
                    "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            }
        }
        return result.ruleSet == nil ? .ruleErrors : .success
    }
}
