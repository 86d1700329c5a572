import CommandKit
import FeatureKit
import RuleEngine

/// The `journey` command line over a set of features: a function over injected streams that
/// returns an exit code. The `journey` executable hands it every feature
/// (`JourneyCLI(features: Features.all)`); it names none itself.
public struct JourneyCLI: Sendable {
    /// The engine's version.
    public static let version = "0.2.0"

    /// The features whose commands, kinds and consumers the commands run with.
    let engine: FeatureSet
    /// The engine's own commands, every feature's, and `serve` last.
    let commands: [any Command.Type]
    /// Commands grouped under a word (`journey db migrate`), with the group's overview.
    let groups: [String: String]

    public init(features: FeatureSet) {
        engine = features
        commands =
            [
                CheckCommand.self, TestCommand.self, EvalCommand.self, RulesCommand.self, ParamsCommand.self,
                ParamsSetCommand.self, IngestCommand.self,
                DatabaseMigrateCommand.self, DatabaseStatsCommand.self, AnalyticsExportCommand.self, TextsCommand.self,
                TextsRenderCommand.self,
            ] + features.commands + [TokenMintCommand.self, TokenVerifyCommand.self, ServeCommand.self]
        groups = features.commandGroups.merging([
            "db": "Manage the store: migrate its schema, show its statistics.",
            "analytics": "Export the analytics outbox to the app's analytics pipeline.",
            "token": "Make and check bearer tokens for the service's app routes (HS256 for testing).",
        ]) { feature, _ in feature }
    }

    var root: CommandSpec {
        CommandSpec(
            name: "journey",
            overview: "The Journey engine: the rules behind the Dog Journey, onboarding, challenges and habits.",
            discussion: """
                Rules are jq expressions in YAML files under Rules/; shared jq functions live in Rules/lib.
                Exit codes: 0 success, 1 failure, 2 the rules do not load, 3 rule tests failed, 64 usage error.
                """,
            options: [OptionSpec(long: "version", help: "Show the version.")],
            subcommands: topLevelEntries()
        )
    }

    /// `check`, `test`, …, and each group once.
    private func topLevelEntries() -> [(name: String, overview: String)] {
        var entries: [(name: String, overview: String)] = []
        for command in commands {
            let words = command.spec.name.split(separator: " ").dropFirst().map(String.init)
            if words.count == 1 {
                entries.append((words[0], command.spec.overview))
            } else if let group = words.first, !entries.contains(where: { $0.name == group }) {
                entries.append((group, groups[group] ?? ""))
            }
        }
        return entries
    }

    /// The help of a group: its commands as subcommands.
    func groupSpec(_ group: String) -> CommandSpec {
        CommandSpec(
            name: "journey \(group)", overview: groups[group] ?? "",
            subcommands: commands.filter { $0.spec.name.hasPrefix("journey \(group) ") }.map {
                (String($0.spec.name.split(separator: " ").last!), $0.spec.overview)
            })
    }

    /// Runs `journey` with `arguments` (without the program name); flushes both streams.
    public func run(_ arguments: [String], io: CommandIO) -> Int32 {
        defer {
            io.stdout.flush()
            io.stderr.flush()
        }
        return dispatch(arguments, io: io)
    }

    private func dispatch(_ arguments: [String], io: CommandIO) -> Int32 {
        guard let first = arguments.first else {
            io.stdout.write(HelpFormatter.help(root))
            return ExitCode.success.rawValue
        }
        if first == "--version" {
            io.stdout.line("journey \(Self.version)")
            return ExitCode.success.rawValue
        }
        if first == "-h" || first == "--help" {
            io.stdout.write(HelpFormatter.help(root))
            return ExitCode.success.rawValue
        }
        if first == "help" {
            return help(Array(arguments.dropFirst()), io: io)
        }
        guard let (command, consumed) = command(for: arguments) else {
            if first.hasPrefix("-") {
                io.stderr.write(
                    HelpFormatter.usageError(UsageError(message: "Unknown option '\(first)'", command: root)))
                return ExitCode.usage.rawValue
            }
            if groups[first] != nil {
                let spec = groupSpec(first)
                if arguments.count == 1 || ArgumentParser.asksForHelp(Array(arguments.dropFirst())) {
                    io.stdout.write(HelpFormatter.help(spec))
                    return ExitCode.success.rawValue
                }
                let message = "Unknown subcommand '\(arguments[1])' of 'journey \(first)'"
                io.stderr.write(HelpFormatter.usageError(UsageError(message: message, command: spec)))
                return ExitCode.usage.rawValue
            }
            return unknownCommand(first, io: io)
        }
        let rest = Array(arguments.dropFirst(consumed))
        if ArgumentParser.asksForHelp(rest) {
            io.stdout.write(HelpFormatter.help(command.spec))
            return ExitCode.success.rawValue
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            return try command.run(parsed, io: io, engine: engine).rawValue
        } catch {
            io.stderr.write(HelpFormatter.usageError(error))
            return ExitCode.usage.rawValue
        }
    }

    /// `journey help [COMMAND…]`
    private func help(_ words: [String], io: CommandIO) -> Int32 {
        guard let first = words.first else {
            io.stdout.write(HelpFormatter.help(root))
            return ExitCode.success.rawValue
        }
        if let (command, _) = command(for: words) {
            io.stdout.write(HelpFormatter.help(command.spec))
        } else if groups[first] != nil {
            io.stdout.write(HelpFormatter.help(groupSpec(first)))
        } else {
            return unknownCommand(first, io: io)
        }
        return ExitCode.success.rawValue
    }

    /// The command named by the first one or two words of `arguments`, and how many words.
    private func command(for arguments: [String]) -> ((any Command.Type), Int)? {
        if arguments.count >= 2,
            let command = commands.first(where: { $0.spec.name == "journey \(arguments[0]) \(arguments[1])" })
        {
            return (command, 2)
        }
        guard let first = arguments.first, let command = commands.first(where: { $0.spec.name == "journey \(first)" })
        else { return nil }
        return (command, 1)
    }

    private func unknownCommand(_ name: String, io: CommandIO) -> Int32 {
        var message = "Unknown subcommand '\(name)'"
        let names = topLevelEntries().map(\.name)
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
