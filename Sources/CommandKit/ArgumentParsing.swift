/// An option of a command: `--name <value>` or a flag `--name` / `-n`.
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character? = nil
    /// The value's placeholder (`dir`); nil for a flag.
    public var valueName: String? = nil
    public var help: String
    /// Shown as `(default: …)`.
    public var defaultValue: String? = nil
    /// When set, the value must be one of these.
    public var allowedValues: [String]? = nil
    /// Accepted but left out of help and usage (the supervisor's flags for its workers).
    public var isHidden = false
    /// When set, says what is wrong with a value (nil: it is fine).
    public var problem: (@Sendable (String) -> String?)? = nil

    public init(
        long: String, short: Character? = nil, valueName: String? = nil, help: String, defaultValue: String? = nil,
        allowedValues: [String]? = nil, isHidden: Bool = false, problem: (@Sendable (String) -> String?)? = nil
    ) {
        self.problem = problem
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.allowedValues = allowedValues
        self.isHidden = isHidden
    }

    public var isFlag: Bool { valueName == nil }

    /// `--rules <dir>` or `-v, --verbose`
    public var signature: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " <\(valueName)>" }
        return text
    }

    /// `[--rules <dir>]`
    public var usage: String {
        if let short, isFlag { return "[-\(short)]" }
        return "[--\(long)\(valueName.map { " <\($0)>" } ?? "")]"
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var isOptional = false

    public init(name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }
}

/// What a command accepts, and the text of its help.
public struct CommandSpec: Sendable {
    /// The full name, e.g. `journey eval`.
    public var name: String
    public var overview: String
    public var discussion: String? = nil
    public var arguments: [ArgumentSpec] = []
    public var options: [OptionSpec] = []
    public var subcommands: [(name: String, overview: String)] = []
    /// Usage lines to show instead of the generated one.
    public var customUsage: [String]? = nil

    public init(
        name: String, overview: String, discussion: String? = nil, arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], subcommands: [(name: String, overview: String)] = [], customUsage: [String]? = nil
    ) {
        self.name = name
        self.overview = overview
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.customUsage = customUsage
    }

    public var usageLines: [String] {
        if let customUsage { return customUsage }
        var parts = [name]
        if !subcommands.isEmpty { parts.append("<subcommand>") }
        for argument in arguments { parts.append(argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>") }
        parts += options.filter { !$0.isHidden }.map(\.usage)
        return [parts.joined(separator: " ")]
    }

    public func option(named long: String) -> OptionSpec? {
        options.first { $0.long == long }
    }
}

/// The parsed command line of one command.
public struct ParsedArguments: Sendable {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    /// The last value of `--long`, or its default.
    public func value(_ long: String, spec: CommandSpec) -> String? {
        values[long]?.last ?? spec.option(named: long)?.defaultValue
    }

    public func flag(_ long: String) -> Bool { flags.contains(long) }
}

/// A wrong command line; printed with the command's usage and exit code 64.
public struct UsageError: Error, Sendable {
    public var message: String
    public var command: CommandSpec

    public init(message: String, command: CommandSpec) {
        self.message = message
        self.command = command
    }
}

public enum ArgumentParser {
    /// Whether `arguments` ask for help (`-h`, `--help`) before any `--`.
    public static func asksForHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "-h" || argument == "--help" { return true }
        }
        return false
    }

    /// Parses `arguments` (after the command's name) against `spec`.
    public static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec) }

        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let option: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let found = spec.option(named: name) else {
                    var message = "Unknown option '--\(name)'"
                    if let suggestion = closestOption(name, in: spec) { message += "; did you mean '--\(suggestion)'?" }
                    throw fail(message)
                }
                option = found
            } else {
                let short = argument.dropFirst()
                guard short.count == 1, let found = spec.options.first(where: { $0.short == short.first }) else {
                    throw fail("Unknown option '\(argument)'")
                }
                option = found
            }
            if option.isFlag {
                if inlineValue != nil { throw fail("Option '--\(option.long)' takes no value") }
                parsed.flags.insert(option.long)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard i < arguments.count else {
                    throw fail("Missing value for '--\(option.long) <\(option.valueName!)>'")
                }
                value = arguments[i]
                i += 1
            }
            if let allowed = option.allowedValues, !allowed.contains(value) {
                throw fail(
                    "The value '\(value)' is invalid for '--\(option.long) <\(option.valueName!)>'; use one of: \(allowed.joined(separator: ", "))"
                )
            }
            if let problem = option.problem?(value) {
                throw fail("The value '\(value)' is invalid for '--\(option.long) <\(option.valueName!)>': \(problem)")
            }
            parsed.values[option.long, default: []].append(value)
        }
        return parsed
    }

    private static func closestOption(_ name: String, in spec: CommandSpec) -> String? {
        let names = spec.options.map(\.long)
        return names.min { editDistance($0, name) < editDistance($1, name) }.flatMap {
            editDistance($0, name) <= 2 ? $0 : nil
        }
    }

    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in 0..<a.count {
            var current = [i + 1]
            for j in 0..<b.count {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

public enum HelpFormatter {
    private static let column = 26

    /// The help page of a command, in swift-argument-parser's layout.
    public static func help(_ spec: CommandSpec) -> String {
        var text = "OVERVIEW: \(spec.overview)\n"
        if let discussion = spec.discussion { text += "\n\(discussion)\n" }
        text += "\n"
        let usage = spec.usageLines
        text += "USAGE: \(usage[0])\n"
        for line in usage.dropFirst() { text += "       \(line)\n" }
        if !spec.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in spec.arguments { text += row("<\(argument.name)>", argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in spec.options where !option.isHidden {
            var help = option.help
            if let allowed = option.allowedValues { help += " (values: \(allowed.joined(separator: ", ")))" }
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            text += row(option.signature, help)
        }
        text += row("-h, --help", "Show help information.")
        if !spec.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for subcommand in spec.subcommands { text += row(subcommand.name, subcommand.overview) }
            let group = spec.name.split(separator: " ").dropFirst().joined(separator: " ")
            text += "\n  See 'journey help \(group.isEmpty ? "" : group + " ")<subcommand>' for detailed help.\n"
        }
        return text
    }

    private static func row(_ name: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = wrap(help, width: 80 - column)
        let first = "  " + name
        var text: String
        if first.count < column - 1 {
            text = first + String(repeating: " ", count: column - first.count) + (lines.first ?? "") + "\n"
        } else {
            text = first + "\n" + indent + (lines.first ?? "") + "\n"
        }
        for line in lines.dropFirst() { text += indent + line + "\n" }
        return text
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `Error: …`, the usage, and where to find help.
    public static func usageError(_ error: UsageError) -> String {
        let usage = error.command.usageLines
        var text = "Error: \(error.message)\nUsage: \(usage[0])\n"
        for line in usage.dropFirst() { text += "       \(line)\n" }
        text += "  See '\(error.command.name) --help' for more information.\n"
        return text
    }
}
