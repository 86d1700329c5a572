import RuleEngine
import Store

/// Work `journey serve` does periodically for a feature (one worker runs it).
public struct FeatureJob: Sendable {
    /// What logs call it (`challenge digest`).
    public var name: String
    /// How often the service runs it, at most.
    public var every: Duration
    /// Runs once over `store` with the rules served, at time `now` (seconds since 1970);
    /// returns a line for the log, or nil when there was nothing to do. Must be idempotent: a
    /// worker may run it again after a restart.
    public var run: Run
    public typealias Run = @Sendable (_ store: any Store, _ ruleSet: RuleSet, _ now: Double) throws -> String?

    public init(name: String, every: Duration, run: @escaping Run) {
        self.name = name
        self.every = every
        self.run = run
    }
}
