import CommandKit
import Core
import Foundation
import JQ
import RuleEngine
import Store
import StoreBackends

/// Options every command spells the same way.
public enum CommonOptions {
    public static let rules = OptionSpec(
        long: "rules", valueName: "dir", help: "The rules directory.", defaultValue: "./Rules")
    public static let plugins = OptionSpec(
        long: "plugins", valueName: "dir", help: "The check-plugins directory.", defaultValue: "./Plugins")
    public static let database = OptionSpec(
        long: "db", valueName: "path",
        help: "The store: an SQLite file (or sqlite:PATH, :memory:), or a PostgreSQL URL (postgresql://…).",
        defaultValue: "./journey.sqlite",
        problem: storeLocationProblem)

    /// What is wrong with a `--db` value, if anything.
    @Sendable public static func storeLocationProblem(_ text: String) -> String? {
        do {
            _ = try StoreLocation(text)
            return nil
        } catch {
            return error.problem
        }
    }
    public static let format = OptionSpec(
        long: "format", valueName: "format", help: "Output format.", defaultValue: "text",
        allowedValues: ["text", "json"])

    /// Loads the rule set named by `--rules`/`--plugins`. When it does not load, prints the
    /// diagnostics to stderr and returns nil (the caller exits with ``ExitCode/ruleErrors``).
    public static func loadRules(_ arguments: ParsedArguments, spec: CommandSpec, io: CommandIO, engine: FeatureSet)
        -> RuleSetLoader.Result?
    {
        let result = loader(arguments, spec: spec, engine: engine).load()
        guard result.ruleSet != nil else {
            io.stderr.write(DiagnosticText.render(result.diagnostics))
            let errors = result.diagnostics.filter { $0.severity == .error }.count
            io.stderr.line(
                "Error: the rules do not load (\(errors) error\(errors == 1 ? "" : "s")); see 'journey check'")
            return nil
        }
        return result
    }

    /// The loader of `--rules` and `--plugins`, with every feature's kinds.
    public static func loader(_ arguments: ParsedArguments, spec: CommandSpec, engine: FeatureSet) -> RuleSetLoader {
        engine.loader(
            rulesDirectory: arguments.value("rules", spec: spec) ?? "./Rules",
            pluginsDirectory: arguments.value("plugins", spec: spec))
    }

    /// Where `--db` says the store is (`journey.sqlite` by default).
    public static func storeLocation(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError)
        -> StoreLocation
    {
        guard let text = arguments.value("db", spec: spec) else { return .default }
        do {
            return try StoreLocation(text)
        } catch {
            throw UsageError(message: "The value for '--db <path>': \(error)", command: spec)
        }
    }

    /// Opens the store named by `--db` with `engine`'s schema, creating and migrating it when
    /// needed.
    public static func openStore(
        _ arguments: ParsedArguments, spec: CommandSpec, engine: FeatureSet, migrate: Bool = true
    ) throws -> any StoreConnection {
        try storeLocation(arguments, spec: spec).open(schema: engine.schema, migrate: migrate)
    }

    /// The positional arguments, named `names` in order (the last `optional` of them may be
    /// left out); a usage error names the first missing one (`Missing the dog's id`) or the
    /// first extra one.
    public static func positionals(
        _ arguments: ParsedArguments, spec: CommandSpec, names: [String], optional: Int = 0
    ) throws(UsageError) -> [String] {
        let given = arguments.positionals
        if given.count < names.count - optional {
            throw UsageError(message: "Missing \(names[given.count])", command: spec)
        }
        if given.count > names.count {
            throw UsageError(message: "Unexpected argument '\(given[names.count])'", command: spec)
        }
        return given
    }

    /// Refuses positional arguments for a command that takes none.
    public static func expectNoArguments(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) {
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "Unexpected argument '\(arguments.positionals[0])'", command: spec)
        }
    }

    /// The value of a required option (`--user`), or a usage error naming it.
    public static func required(_ name: String, _ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError)
        -> String
    {
        guard let value = arguments.values[name]?.last else {
            throw UsageError(message: "Missing --\(name)", command: spec)
        }
        return value
    }

    /// `--now`, or the clock.
    public static func now(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Double {
        guard let text = arguments.values["now"]?.last else { return Date().timeIntervalSince1970 }
        guard let seconds = Timestamp.parse(text) else {
            throw UsageError(
                message:
                    "The value '\(text)' for '--now <iso8601>' is not a date-time with an offset, e.g. 2026-11-29T09:00:00Z",
                command: spec)
        }
        return seconds
    }

    /// The store named by `--db` when it exists (nil otherwise); never created.
    public static func existingStore(_ arguments: ParsedArguments, spec: CommandSpec, engine: FeatureSet) throws
        -> (any StoreConnection)?
    {
        let location = try storeLocation(arguments, spec: spec)
        guard location.exists else { return nil }
        return try location.open(schema: engine.schema)
    }

    /// The store named by `--db`, which must exist (views read, they do not create one); prints
    /// "no store at PATH (`hint`)" and returns nil when it does not.
    public static func requiredStore(
        _ arguments: ParsedArguments, spec: CommandSpec, io: CommandIO, engine: FeatureSet,
        hint: String = "ingest events first: journey ingest FILE"
    ) throws -> (any StoreConnection)? {
        guard let store = try existingStore(arguments, spec: spec, engine: engine) else {
            io.stderr.line("Error: no store at \(try storeLocation(arguments, spec: spec)) (\(hint))")
            return nil
        }
        return store
    }

    /// A number as people write it: whole numbers without ".0", others with one decimal.
    public static func number(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(format: "%.1f", n)
    }

    public static func isJSON(_ arguments: ParsedArguments, spec: CommandSpec) -> Bool {
        arguments.value("format", spec: spec) == "json"
    }
}

/// Diagnostics as compilers print them, with the source line and a caret.
public enum DiagnosticText {
    public static func render(_ diagnostics: [Diagnostic]) -> String {
        var cache: [String: [Substring]] = [:]
        func sourceLine(_ location: SourceLocation) -> Substring? {
            if cache[location.file] == nil {
                let text = (try? String(contentsOfFile: location.file, encoding: .utf8)) ?? ""
                cache[location.file] = text.split(separator: "\n", omittingEmptySubsequences: false)
            }
            guard let lines = cache[location.file], location.line >= 1, location.line <= lines.count else { return nil }
            return lines[location.line - 1]
        }
        var text = ""
        for diagnostic in diagnostics {
            text +=
                "\(diagnostic.location): \(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.code)]\n"
            if let line = sourceLine(diagnostic.location), !line.allSatisfy(\.isWhitespace) {
                let caretColumn = min(max(diagnostic.location.column, 1), line.count + 1)
                text += "    \(line)\n"
                text += "    " + String(repeating: " ", count: caretColumn - 1) + "^\n"
            }
            for note in diagnostic.notes {
                text += "\(note.location): note: \(note.message)\n"
            }
        }
        return text
    }

    public static func json(_ diagnostic: Diagnostic) -> JSON { diagnostic.json }
}
