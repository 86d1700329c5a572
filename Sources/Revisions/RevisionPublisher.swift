import Core
import FeatureKit
import RevisionStore
import RuleEngine
import Store

/// Publishes, activates and rolls back rule revisions in a store, recording each in the audit
/// trail. A revision is stored and activated only when its gates pass.
public struct RevisionPublisher {
    public var store: any Store
    public var gates: RevisionGates
    public var now: () -> Double
    /// How the gates run on a revision and its parent (default: ``gates`` in this process; the
    /// service runs them in a child process, see ``IsolatedGates``).
    public var runGates: ((RevisionFiles, RevisionFiles?) throws -> GateReport)?

    public init(store: any Store, engine: FeatureSet, now: @escaping () -> Double) {
        self.store = store
        self.gates = RevisionGates(engine: engine)
        self.now = now
    }

    /// What a publish did.
    public struct Outcome: Sendable {
        public var report: GateReport
        /// The revision, when the gates passed.
        public var revision: RuleRevision?
        /// False when the files are the active revision already (nothing changed).
        public var activated: Bool
        /// With `activate: false`, whether this call kept the revision (false when it was kept
        /// already, or refused).
        public var kept: Bool = false
        /// Set when activating was asked for but the revision still needs approvals: it is kept,
        /// not active.
        public var approvals: ApprovalState?

        public var json: JSON {
            [
                "published_revision": revision?.json ?? .null, "activated": .bool(activated), "gates": report.json,
                "approvals": approvals?.json ?? .null,
            ]
        }
    }

    /// Runs the gates on `files` against the active revision; when they pass, keeps the
    /// revision (once per content) and, unless `activate` is false, makes it active (a kept,
    /// inactive revision can be previewed, diffed and activated later).
    /// With approvals required (see ``approvalState(of:activator:)``) and not given yet, the
    /// revision is only kept, and the outcome says what it waits for.
    public func publish(_ files: RevisionFiles, author: String, message: String, activate: Bool = true) throws
        -> Outcome
    {
        var activate = activate
        var waiting: ApprovalState?
        let author = try Self.required(author, "an author")
        let message = try Self.required(message, "a message")
        let active = try store.activeRevision().map { try store.ruleRevision($0.revision) }
        let parentFiles = try active.map { try store.ruleRevisionFiles($0.id) }
        let report = try runGates?(files, parentFiles) ?? gates.run(files, parent: parentFiles)
        guard report.passed else { return Outcome(report: report, revision: nil, activated: false) }
        let id = report.revision
        if active?.id == id {
            return Outcome(report: report, revision: active, activated: false)
        }
        let at = now()
        if activate, try store.requiredApprovals() > 0 {
            let kept = try? store.ruleRevision(id)
            let state =
                try kept.map { try approvalState(of: $0, activator: author) }
                ?? ApprovalState(needed: try store.requiredApprovals(), approvers: [])
            if !state.satisfied {
                activate = false
                waiting = state
            }
        }
        guard activate else {
            let candidate = RuleRevision(
                id: id, parent: active?.id, author: author, message: message, createdAt: at, gates: report.json)
            let (revision, kept) = try store.transaction { () throws -> (RuleRevision, Bool) in
                let kept = try store.insertRuleRevision(candidate, files: files)
                if !kept { try store.renameDraft(id, author: author, message: message) }
                if kept {
                    try store.appendAudit(
                        AuditEntry(
                            at: at, actor: author, action: "keep", subject: id, message: message,
                            detail: ["parent": active.map { .string($0.id) } ?? .null]))
                }
                return (try store.ruleRevision(id), kept)
            }
            return Outcome(report: report, revision: revision, activated: false, kept: kept, approvals: waiting)
        }
        let summary: JSON =
            if let active, let parentFiles {
                RevisionDiff(from: parentFiles, to: files, digests: (Self.digests(active), report.ruleDigests)).summary
            } else {
                ["files": .number(Double(files.files.count)), "first": true]
            }
        let revision = try store.transaction {
            () throws -> RuleRevision in
            let candidate = RuleRevision(
                id: id, parent: active?.id, author: author, message: message, createdAt: at, gates: report.json)
            if try !store.insertRuleRevision(candidate, files: files) {
                // Kept before (by a preview): its author's publish message replaces the draft's.
                try store.renameDraft(id, author: author, message: message)
            }
            try store.activateRuleRevision(id, author: author, message: message, at: at)
            try store.appendAudit(
                AuditEntry(at: at, actor: author, action: "publish", subject: id, message: message, detail: summary))
            return try store.ruleRevision(id)
        }
        return Outcome(report: report, revision: revision, activated: true, kept: true)
    }

    /// Makes a kept revision active again (`action` is `activate` or `rollback`); returns it.
    /// It needs its approvals (``ApprovalRequired``) unless it is an `emergency` rollback.
    @discardableResult
    public func activate(
        _ id: String, author: String, message: String, action: String? = nil, emergency: Bool = false
    ) throws -> RuleRevision {
        let author = try Self.required(author, "an author")
        let message = try Self.required(message, "a message")
        let revision = try store.ruleRevision(id)
        // Unless told: making a revision that was active before active again is a rollback.
        var action = try action ?? (store.hasBeenActive(revision.id) ? "rollback" : "activate")
        if emergency {
            guard action == "rollback" else {
                throw PublishError(
                    message: "only a rollback (to a revision that was active before) can be an emergency")
            }
            action = "emergency_rollback"
        } else {
            try requireApprovals(
                revision, activator: author, doing: action == "rollback" ? "rolling back to" : "activating")
        }
        let active = try store.activeRevision().map { try store.ruleRevision($0.revision) }
        var summary: JSON = ["from": active.map { .string($0.id) } ?? .null]
        if let active { summary = try diff(active, revision).summary.merging(["from": .string(active.id)]) }
        let at = now()
        try store.transaction {
            try store.activateRuleRevision(revision.id, author: author, message: message, at: at)
            try store.appendAudit(
                AuditEntry(
                    at: at, actor: author, action: action, subject: revision.id, message: message, detail: summary))
        }
        return revision
    }

    /// The diff of two kept revisions, per file and per rule (from their gate reports' digests).
    public func diff(_ from: RuleRevision, _ to: RuleRevision) throws -> RevisionDiff {
        RevisionDiff(
            from: try store.ruleRevisionFiles(from.id), to: try store.ruleRevisionFiles(to.id),
            digests: (Self.digests(from), Self.digests(to)))
    }

    /// A kept revision's rule digests, by rule id.
    static func digests(_ revision: RuleRevision) -> [String: String] {
        var digests: [String: String] = [:]
        for (id, digest) in revision.gates["rule_digests"]?.objectValue ?? [:] { digests[id] = digest.stringValue }
        return digests
    }

    private static func required(_ text: String, _ what: String) throws(PublishError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 2_000 else {
            throw PublishError(message: "give \(what) (1 to 2000 characters)")
        }
        return trimmed
    }
}

/// A publish or activation refused before any gate ran.
public struct PublishError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension JSON {
    /// An object with `other`'s members added (other wins); other values unchanged.
    func merging(_ other: JSONObject) -> JSON {
        guard case .object(var object) = self else { return self }
        for (key, value) in other { object[key] = value }
        return .object(object)
    }
}
