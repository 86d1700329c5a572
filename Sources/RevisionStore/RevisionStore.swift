import Core
import Store

/// Rule revisions, their files, activations and the audit trail, in the engine's store
/// (through the shared SQL, so every backend keeps them the same way).
extension StoreReader {
    /// Newest first, at most `limit`.
    public func ruleRevisions(limit: Int = 100) throws -> [RuleRevision] {
        try rows(
            "SELECT \(RevisionRow.columns) FROM rule_revisions ORDER BY created_at DESC, revision LIMIT ?",
            [.integer(Int64(limit))], RevisionRow.make)
    }

    /// The revision whose id is `id` or starts with it (at least 4 characters).
    public func ruleRevision(_ id: String) throws -> RuleRevision {
        let prefix = id.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit }) else { throw RevisionError.unknown(id) }
        let matches = try rows(
            "SELECT \(RevisionRow.columns) FROM rule_revisions WHERE revision >= ? AND revision < ? ORDER BY revision LIMIT 5",
            [.text(prefix), .text(prefix + "g")], RevisionRow.make)
        guard let first = matches.first else { throw RevisionError.unknown(id) }
        guard matches.count == 1 else { throw RevisionError.ambiguous(id, matches.map(\.id)) }
        return first
    }

    /// The files of revision `id` (a full id).
    public func ruleRevisionFiles(_ id: String) throws -> RevisionFiles {
        var files: [String: String] = [:]
        try query("SELECT path, content FROM rule_revision_files WHERE revision = ?", [.text(id)]) { row in
            files[row.text(0) ?? ""] = row.text(1) ?? ""
        }
        return try RevisionFiles(files)
    }

    /// The latest activation: what the engine serves (nil before the first publish).
    public func activeRevision() throws -> RevisionActivation? {
        try first(
            "SELECT id, revision, author, message, activated_at FROM rule_activations ORDER BY id DESC LIMIT 1", []
        ) { row in
            RevisionActivation(
                id: row.integer(0), revision: row.text(1) ?? "", author: row.text(2) ?? "", message: row.text(3) ?? "",
                activatedAt: row.real(4))
        }
    }

    /// Every activation, newest first, at most `limit`.
    /// Whether `revision` was ever the active one.
    public func hasBeenActive(_ revision: String) throws -> Bool {
        try first("SELECT 1 FROM rule_activations WHERE revision = ? LIMIT 1", [.text(revision)]) { _ in true } ?? false
    }

    public func revisionActivations(limit: Int = 100) throws -> [RevisionActivation] {
        try rows(
            "SELECT id, revision, author, message, activated_at FROM rule_activations ORDER BY id DESC LIMIT ?",
            [.integer(Int64(limit))]
        ) { row in
            RevisionActivation(
                id: row.integer(0), revision: row.text(1) ?? "", author: row.text(2) ?? "", message: row.text(3) ?? "",
                activatedAt: row.real(4))
        }
    }

    /// The audit trail, newest first, at most `limit`.
    public func auditEntries(limit: Int = 100) throws -> [AuditEntry] {
        try rows(
            "SELECT id, at, actor, action, subject, message, detail FROM audit_log ORDER BY id DESC LIMIT ?",
            [.integer(Int64(limit))]
        ) { row in
            AuditEntry(
                id: row.integer(0), at: row.real(1), actor: row.text(2) ?? "", action: row.text(3) ?? "",
                subject: row.text(4) ?? "", message: row.text(5) ?? "",
                detail: (try? JSONParser().parse(row.text(6) ?? "null")) ?? .null)
        }
    }
}

extension Store {
    /// Keeps `revision` with its files; false when a revision with this content is kept already
    /// (its first author and message stay).
    @discardableResult
    public func insertRuleRevision(_ revision: RuleRevision, files: RevisionFiles) throws -> Bool {
        let inserted = try run(
            """
            INSERT INTO rule_revisions (revision, parent, author, message, created_at, gates) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (revision) DO NOTHING
            """,
            [
                .text(revision.id), .optional(revision.parent), .text(revision.author), .text(revision.message),
                .real(revision.createdAt), .text(revision.gates.compactText),
            ])
        guard inserted > 0 else { return false }
        for (path, text) in files.files.sorted(by: { $0.key < $1.key }) {
            try run(
                "INSERT INTO rule_revision_files (revision, path, content) VALUES (?, ?, ?)",
                [.text(revision.id), .text(path), .text(text)])
        }
        return true
    }

    /// Makes `revision` (a full id of a kept revision) the one served, and tells the
    /// instances listening on ``ruleActivationsChannel`` (they poll too).
    public func activateRuleRevision(_ revision: String, author: String, message: String, at: Double) throws {
        try run(
            "INSERT INTO rule_activations (revision, author, message, activated_at) VALUES (?, ?, ?, ?)",
            [.text(revision), .text(author), .text(message), .real(at)])
        try notify(ruleActivationsChannel)
    }

    /// Adds a line to the audit trail.
    public func appendAudit(_ entry: AuditEntry) throws {
        try run(
            "INSERT INTO audit_log (at, actor, action, subject, message, detail) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .real(entry.at), .text(entry.actor), .text(entry.action), .text(entry.subject), .text(entry.message),
                .text(entry.detail.compactText),
            ])
    }
}

/// How a revision is read: the columns, in order, and the value they make.
private enum RevisionRow {
    static let columns = "revision, parent, author, message, created_at, gates"

    static func make(_ row: any SQLRow) throws -> RuleRevision {
        RuleRevision(
            id: row.text(0) ?? "", parent: row.text(1), author: row.text(2) ?? "", message: row.text(3) ?? "",
            createdAt: row.real(4), gates: StoredGateReport.current(try JSONParser().parse(row.text(5) ?? "null")))
    }
}

/// Where an activation is announced to the serving instances (`LISTEN`/`NOTIFY` on PostgreSQL).
public let ruleActivationsChannel = "journey_rule_activations"
