import CommandKit
import Core
import FeatureKit
import Foundation
import RuleEngine

/// `journey params`: every parameter the rules and documents declare, with its value.
enum ParamsCommand: Command {
    static let spec = CommandSpec(
        name: "journey params",
        overview: "List the parameters (the knobs of the rules) with their type, value, default and range.",
        discussion: """
            A rule or a document declares its parameters under `params:`; their values live in
            Rules/params.yaml ('journey params set NAME VALUE' edits it), and a parameter not set
            there has its default. Give a NAME (or the start of one, such as a rule id) to list
            only those parameters.
            """,
        arguments: [
            ArgumentSpec(name: "name", help: "Only the parameters whose name starts with this.", isOptional: true)
        ],
        options: [CommonOptions.rules, CommonOptions.plugins, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let prefix = try CommonOptions.positionals(arguments, spec: spec, names: ["name"], optional: 1).first
        guard let ruleSet = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine)?.ruleSet else {
            return .ruleErrors
        }
        let parameters = ruleSet.parameters.filter { prefix == nil || $0.name.hasPrefix(prefix!) }
        if let prefix, parameters.isEmpty {
            var message = "no parameter's name starts with `\(prefix)`"
            if let suggestion = closestMatch(to: prefix, in: ruleSet.parameters.map(\.name)) {
                message += "; did you mean `\(suggestion)`?"
            }
            io.stderr.line("Error: \(message)")
            return .failure
        }
        if CommonOptions.isJSON(arguments, spec: spec) {
            let report: JSONObject = [
                "revision": .string(ruleSet.revision), "parameters": .array(parameters.map(\.json)),
            ]
            io.stdout.line(JSON.object(report).compactText)
            return .success
        }
        let rows = parameters.map { parameter in
            let declaration = parameter.declaration
            return [
                parameter.name, declaration.type.name + (declaration.unit.map { " (\($0))" } ?? ""),
                Self.plain(parameter.value, declaration) + (parameter.isDefault ? "" : " *"),
                Self.plain(declaration.defaultValue, declaration),
                Self.choices(ruleSet.parameterChoices.names(of: declaration.type)) ?? Self.range(declaration),
                "\(declaration.location.file):\(declaration.location.line)", declaration.description,
            ]
        }
        io.stdout.write(
            TextTable.table(
                header: ["PARAMETER", "TYPE", "VALUE", "DEFAULT", "RANGE", "DECLARED", "DESCRIPTION"], rows: rows))
        let set = parameters.filter { !$0.isDefault }.count
        io.stdout.line(
            "\(parameters.count) parameters, \(set) set in \(ruleSet.rulesDirectory)/\(ParameterValuesFile.path) (marked *)"
                + " (revision \(ruleSet.shortRevision))")
        return .success
    }

    /// A value without its unit (the TYPE column has it): `7`, `30d`, `25%`.
    static func plain(_ value: ParameterValue, _ declaration: ParameterDeclaration) -> String {
        declaration.type == .percent ? "\(value.text)%" : value.text
    }

    /// A reference type's choices when they are few (`health | mind | lifestyle`).
    static func choices(_ names: [String]?) -> String? {
        guard let names, !names.isEmpty, names.count <= 6 else { return nil }
        return names.joined(separator: " | ")
    }

    /// `1 to 20`, `≥ 1d`, the values of an enum, or nothing.
    static func range(_ declaration: ParameterDeclaration) -> String {
        switch (declaration.minimum, declaration.maximum) {
        case (let low?, let high?): return "\(plain(low, declaration)) to \(plain(high, declaration))"
        case (let low?, nil): return "≥ \(plain(low, declaration))"
        case (nil, let high?): return "≤ \(plain(high, declaration))"
        case (nil, nil):
            switch declaration.type {
            case .percent: return "0% to 100%"
            case .choice(let values): return values.joined(separator: " | ")
            default: return ""
            }
        }
    }
}

/// `journey params set NAME VALUE`: sets a value in the rules folder's values file.
enum ParamsSetCommand: Command {
    static let spec = CommandSpec(
        name: "journey params set",
        overview: "Set a parameter's value in Rules/params.yaml, checked like 'journey check'.",
        discussion: """
            The value is written as in YAML: 7, 2.5, 30d, 25%, true, weakest_topic, 19:00,
            2026-12-15. The file keeps its comments and every other value: the change is one line.
            With --reset the value is removed, so that the default applies. When the rules do not
            load with the new value (a block id that names nothing, say), the file is left as it
            was and the problems are printed (exit code 2).
            """,
        arguments: [
            ArgumentSpec(name: "name", help: "The parameter, as 'journey params' names it (rule.param)."),
            ArgumentSpec(name: "value", help: "Its new value.", isOptional: true),
        ],
        options: [
            CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(long: "reset", help: "Remove the value: the parameter has its default again."),
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let given = try CommonOptions.positionals(arguments, spec: spec, names: ["name", "value"], optional: 1)
        let reset = arguments.flag("reset")
        if reset == (given.count == 2) {
            throw UsageError(message: reset ? "Give --reset or a value, not both" : "Missing value", command: spec)
        }
        guard let ruleSet = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine)?.ruleSet else {
            return .ruleErrors
        }
        guard let parameter = ruleSet.parameter(given[0]) else {
            var message = "no parameter `\(given[0])`"
            if let suggestion = closestMatch(to: given[0], in: ruleSet.parameters.map(\.name)) {
                message += "; did you mean `\(suggestion)`?"
            }
            io.stderr.line("Error: \(message) ('journey params' lists them)")
            return .failure
        }
        let declaration = parameter.declaration
        var value: ParameterValue?
        if !reset {
            switch declaration.value(from: ParameterValuesFile.readValue(given[1])) {
            case .success(let parsed): value = parsed
            case .failure(let problem):
                io.stderr.line("Error: parameter `\(parameter.name)` \(problem.message) [\(problem.code.rawValue)]")
                return .ruleErrors
            }
        }
        let rules = arguments.value("rules", spec: spec) ?? "./Rules"
        let path = RuleSetLoader.absolutePath(rules) + "/" + ParameterValuesFile.path
        let before = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
        var file = ParameterValuesFile(before)
        do {
            try file.set(declaration, to: value)
            try Data(file.text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        let result = CommonOptions.loader(arguments, spec: spec, engine: engine).load()
        guard let after = result.ruleSet else {
            // The problems as the file has them, then the file back as it was: the folder keeps loading.
            io.stderr.write(DiagnosticText.render(result.diagnostics))
            if let before {
                try? Data(before.utf8).write(to: URL(fileURLWithPath: path))
            } else {
                try? FileManager.default.removeItem(atPath: path)
            }
            io.stderr.line(
                "Error: not set: the rules do not load with that value (\(RuleSetLoader.displayPath(rules))/\(ParameterValuesFile.path) is unchanged)"
            )
            return .ruleErrors
        }
        let shown = value.map(declaration.shown) ?? "\(declaration.shown(declaration.defaultValue)) (its default)"
        let was = declaration.shown(parameter.value)
        io.stdout.line("\(parameter.name) = \(shown) (was \(was)); revision \(after.shortRevision)")
        return .success
    }
}
