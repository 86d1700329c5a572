import RuleEngine

/// A `journey` subcommand.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments; throws ``UsageError`` for arguments that parse but do not fit.
    static func run(_ arguments: ParsedArguments, io: CommandIO) throws(UsageError) -> ExitCode
}

/// The `journey` command line: a function over injected streams that returns an exit code.
public enum JourneyCLI {
    /// The engine's version.
    public static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        CheckCommand.self, TestCommand.self, EvalCommand.self, RulesCommand.self,
    ]

    static let root = CommandSpec(
        name: "journey",
        overview: "The Journey engine: the rules behind the Dog Journey, onboarding, challenges and habits.",
        discussion: """
            Rules are jq expressions in YAML files under Rules/; shared jq functions live in Rules/lib.
            Exit codes: 0 success, 1 failure, 2 the rules do not load, 3 rule tests failed, 64 usage error.
            """,
        options: [OptionSpec(long: "version", help: "Show the version.")],
        subcommands: commands.map { ($0.spec.name.split(separator: " ").last.map(String.init) ?? "", $0.spec.overview) }
    )

    /// Runs `journey` with `arguments` (without the program name); flushes both streams.
    public static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        defer {
            io.stdout.flush()
            io.stderr.flush()
        }
        return dispatch(arguments, io: io)
    }

    private static func dispatch(_ arguments: [String], io: CommandIO) -> Int32 {
        guard let first = arguments.first else {
            io.stdout.write(HelpFormatter.help(root))
            return ExitCode.success.rawValue
        }
        if first == "--version" {
            io.stdout.line("journey \(version)")
            return ExitCode.success.rawValue
        }
        if first == "-h" || first == "--help" {
            io.stdout.write(HelpFormatter.help(root))
            return ExitCode.success.rawValue
        }
        if first == "help" {
            guard let name = arguments.dropFirst().first else {
                io.stdout.write(HelpFormatter.help(root))
                return ExitCode.success.rawValue
            }
            guard let command = command(named: name) else { return unknownCommand(name, io: io) }
            io.stdout.write(HelpFormatter.help(command.spec))
            return ExitCode.success.rawValue
        }
        guard let command = command(named: first) else {
            if first.hasPrefix("-") {
                io.stderr.write(
                    HelpFormatter.usageError(UsageError(message: "Unknown option '\(first)'", command: root)))
                return ExitCode.usage.rawValue
            }
            return unknownCommand(first, io: io)
        }
        let rest = Array(arguments.dropFirst())
        if ArgumentParser.asksForHelp(rest) {
            io.stdout.write(HelpFormatter.help(command.spec))
            return ExitCode.success.rawValue
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            return try command.run(parsed, io: io).rawValue
        } catch {
            io.stderr.write(HelpFormatter.usageError(error))
            return ExitCode.usage.rawValue
        }
    }

    private static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == "journey \(name)" }
    }

    private static func unknownCommand(_ name: String, io: CommandIO) -> Int32 {
        var message = "Unknown subcommand '\(name)'"
        let names = commands.compactMap { $0.spec.name.split(separator: " ").last.map(String.init) }
        if let suggestion = names.min(by: {
            ArgumentParser.editDistance($0, name) < ArgumentParser.editDistance($1, name)
        }),
            ArgumentParser.editDistance(suggestion, name) <= 2
        {
            message += "; did you mean '\(suggestion)'?"
        }
        io.stderr.write(HelpFormatter.usageError(UsageError(message: message, command: root)))
        return ExitCode.usage.rawValue
    }
}
