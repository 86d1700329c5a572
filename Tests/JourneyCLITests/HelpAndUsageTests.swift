import Testing

/// Help and usage errors in swift-argument-parser's layout, with the documented exit codes.
@Suite struct HelpAndUsageTests {
    @Test func rootHelpListsSubcommands() {
        let run = journey("--help")
        #expect(run.status == 0)
        for section in [
            "OVERVIEW:", "USAGE: journey <subcommand>", "OPTIONS:", "SUBCOMMANDS:", "check", "test", "eval", "rules",
        ] {
            #expect(run.stdout.contains(section), "\(section)")
        }
        #expect(journey().stdout == run.stdout)
    }

    @Test(arguments: ["check", "test", "eval", "rules"])
    func everySubcommandHasHelp(_ command: String) {
        let viaFlag = journey(command, "--help")
        #expect(viaFlag.status == 0)
        #expect(viaFlag.stdout.hasPrefix("OVERVIEW: "))
        #expect(viaFlag.stdout.contains("USAGE: journey \(command)"))
        #expect(viaFlag.stdout.contains("-h, --help"))
        #expect(journey("help", command).stdout == viaFlag.stdout)
        #expect(journey(command, "-h").stdout == viaFlag.stdout)
    }

    @Test func version() {
        let run = journey("--version")
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("journey "))
    }

    static let usageErrors: [([String], String)] = [
        (["tset"], "Unknown subcommand 'tset'; did you mean 'test'?"),
        (["check", "--fromat", "json"], "Unknown option '--fromat'; did you mean '--format'?"),
        (["check", "--format", "yaml"], "The value 'yaml' is invalid for '--format <format>'"),
        (["test", "--timeout"], "Missing value for '--timeout <duration>'"),
        (["test", "--timeout", "soon"], "is not a duration"),
        (["test", "--run", "("], "not a valid regular expression"),
        (["eval"], "Missing a rule id or --expr"),
        (["eval", "r", "--expr", "."], "not both"),
        (["eval", "--expr", ".", "--variant", "a"], "apply to rules"),
        (["eval", "--expr", ".", "--now", "yesterday"], "is not a date-time"),
        (["check", "extra"], "Unexpected argument 'extra'"),
        (["--bogus"], "Unknown option '--bogus'"),
    ]

    @Test(arguments: usageErrors)
    func usageErrorsExit64WithAHint(_ arguments: [String], _ message: String) {
        let run = journey(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: "))
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.contains("Usage: journey"))
        #expect(run.stderr.contains("--help' for more information."))
        #expect(run.stdout.isEmpty)
    }
}
