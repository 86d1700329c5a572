/// The exit codes of `journey`; docs/cli.md lists them.
public enum ExitCode: Int32, Sendable {
    /// Everything worked.
    case success = 0
    /// The command failed: an evaluation error, unreadable input, a file that cannot be written.
    case failure = 1
    /// The rules do not load: `journey check` found errors, or another command could not load them.
    case ruleErrors = 2
    /// Some rule tests failed.
    case testsFailed = 3
    /// The command line is wrong: unknown option, missing value, bad argument.
    case usage = 64
}
