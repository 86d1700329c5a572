import Core
import Engine
import Foundation
import HTTP
import RuleEngine
import Store

/// What a feature's route sees of the service answering it: the store, the rules being
/// served, the clock and the one ingest path. The service (one per worker) implements it.
public protocol ServiceContext: AnyObject {
    /// The worker's store.
    var store: any Store { get }
    /// The engine's features (what rule sets are loaded and checked with).
    var features: FeatureSet { get }
    /// Who an admin request comes from, as the audit trail names them: the admin credential's
    /// name (`admin` for the single-token form).
    func adminName(of request: HTTPRequest) -> String
    /// Who the request comes from, checked before the handler ran: an app user (a token's
    /// `sub`) or a service credential; nil on an open route or when the service checks no
    /// tokens.
    var principal: Principal? { get }
    /// Nil when `request` carries the admin credential; else the refusal to answer with.
    func adminRefusal(_ request: HTTPRequest) -> APIError?
    /// The rule set served for this request.
    var ruleSet: RuleSet { get }
    /// This thread's evaluator of ``ruleSet``.
    var evaluator: RuleEvaluator { get }
    /// The time now, in seconds since 1970 (fixed in tests).
    func now() -> Double
    /// The folders the service reads its rules from before a revision is published (nil: none).
    var servedFolders: ServedFolders? { get }
    /// Ingests `events` through the one ingest path (every worker hears which dogs changed).
    func ingest(_ events: [JSON]) -> [IngestResult]
    /// The HTTP status of a refused event, by its rejection code.
    func status(ofRejection code: String?) -> Int
    /// A view of `dog`'s data under `key`: answered from the cache while nothing it derives from
    /// changed (the dog's data, the rules, the quarantine), else computed and kept.
    func dogView(dog: String, key: String, compute: () throws(APIError) -> HTTPResponse) throws(APIError)
        -> HTTPResponse
    /// Writes one line to the service's log: a problem a request worked around.
    func log(_ line: String)
    /// Runs the isolated job `name` (see ``IsolatedJob``) on `input` in a child process, for
    /// `timeout` at most; `progress` gets each message the child reports, as it comes.
    func runIsolated(_ name: String, input: JSON, timeout: Duration, progress: (JSON) -> Void) -> IsolatedOutcome
}

extension ServiceContext {
    /// The service's log is its standard error: one write per line, as `journey serve` logs.
    public func log(_ line: String) {
        let bytes = Array(("journey serve: " + line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// The rule and plugin folders a service was started with (what it serves before a revision
/// is published).
public struct ServedFolders: Sendable, Equatable {
    public var rules: String
    public var plugins: String?

    public init(rules: String, plugins: String?) {
        self.rules = rules
        self.plugins = plugins
    }
}

extension ServiceContext {
    /// Refuses (403 `role_required`) a caller whose admin role is below `role`; `doing` says
    /// what they asked for ("publishing").
    public func requireRole(_ role: AdminRole, to doing: String) throws(APIError) {
        guard case .service(let name, let scopes)? = principal, let has = scopes.adminRole, has < role else { return }
        throw APIError(
            403, "role_required",
            "\(doing) needs the \(role.name) role; `\(name)` is a\(has == .admin ? "n" : "") \(has.name)",
            errors: [["needed": .string(role.name), "role": .string(has.name)]])
    }
}
