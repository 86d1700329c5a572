import Core
import JQ
import RuleEngine

/// What one attempt to load rules gave.
public struct ReloadReport: Sendable {
    public enum Outcome: String, Sendable {
        /// Loaded, compiled, tests passed: now serving.
        case loaded
        /// The files are the revision already served: nothing to do.
        case unchanged
        /// Refused: the diagnostics or failed tests say why; the previous rules keep serving.
        case refused
    }

    public var outcome: Outcome
    /// What asked for the load: `startup`, `files changed`, `SIGHUP`, `admin`, `peer`.
    public var trigger: String
    /// The revision of the files tried.
    public var revision: String?
    /// When the attempt ended (seconds since 1970), and how long it took.
    public var at: Double
    public var seconds: Double
    public var diagnostics: [Diagnostic] = []
    public var failedTests: [TestOutcome] = []
    public var testsRun = 0
    /// One sentence for people.
    public var message: String

    public var succeeded: Bool { outcome != .refused }

    public var json: JSON {
        var object: JSONObject = [
            "outcome": .string(outcome.rawValue), "cause": .string(trigger),
            "revision": revision.map(JSON.string) ?? .null, "at": .string(Timestamp.format(at)),
            "seconds": .number((seconds * 1000).rounded() / 1000), "message": .string(message),
            "tests_run": .number(Double(testsRun)),
        ]
        object["diagnostics"] = .array(diagnostics.map(\.json))
        object["failed_tests"] = .array(failedTests.map(\.json))
        return .object(object)
    }
}
