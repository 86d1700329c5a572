import CommandKit

/// A `journey` subcommand: the engine's own, or a feature's.
public protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments over `engine` (every feature put together); throws
    /// ``UsageError`` for arguments that parse but do not fit.
    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError) -> ExitCode
}
