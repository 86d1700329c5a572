import JQ

/// Compiled programs kept from one load to the next by one thread, so that reloading after a
/// one-rule edit compiles one rule (libjq 1.6 takes tens of milliseconds per program) instead of
/// every rule. Programs are found by the rule's digest (its expressions, budget and library),
/// so an edited rule, or any rule after a library edit, is compiled again.
///
/// Not `Sendable`: its programs own `jq_state`s; use it from the thread that made it, and never
/// hand an evaluator whose programs came from it to another thread.
public final class ProgramCache {
    private var programs: [String: Program] = [:]
    /// Programs taken from the cache and compiled by the last load.
    public private(set) var lastReused = 0
    public private(set) var lastCompiled = 0

    public init() {}

    static func key(digest: String, variant: String?) -> String {
        digest + "|" + (variant ?? "\u{0}fallback")
    }

    func program(_ key: String) -> Program? { programs[key] }

    /// Keeps exactly the programs the last load used.
    func keep(_ used: [String: Program], reused: Int) {
        programs = used
        lastReused = reused
        lastCompiled = used.count - reused
    }

    /// How many programs are kept.
    public var count: Int { programs.count }
}
