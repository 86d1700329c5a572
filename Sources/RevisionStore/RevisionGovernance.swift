import Core
import Store

/// Approvals of revisions, scheduled activations and the revision settings (how many
/// approvals an activation needs), in the engine's store.
extension StoreReader {
    /// A revision setting (`required_approvals`), nil when never written.
    public func revisionSetting(_ key: String) throws -> String? {
        try first("SELECT value FROM revision_settings WHERE key = ?", [.text(key)]) { $0.text(0) } ?? nil
    }

    /// How many approvals by other people an activation needs (0: off), as the last
    /// `journey serve --require-approvals N` on this store wrote it.
    public func requiredApprovals() throws -> Int {
        Int(try revisionSetting(requiredApprovalsSetting) ?? "0") ?? 0
    }

    /// The approvals of `revision` given since it was last activated (an activation uses
    /// them up), oldest first.
    public func pendingApprovals(of revision: String) throws -> [RevisionApproval] {
        try rows(
            """
            SELECT revision, approver, message, at FROM rule_approvals WHERE revision = ?
            AND at > COALESCE((SELECT MAX(activated_at) FROM rule_activations WHERE revision = ?), -1)
            ORDER BY at, id
            """, [.text(revision), .text(revision)]
        ) { row in
            RevisionApproval(
                revision: row.text(0) ?? "", approver: row.text(1) ?? "", message: row.text(2) ?? "", at: row.real(3))
        }
    }

    /// Scheduled activations, soonest first: the pending ones, or (with `all`) every one.
    public func revisionSchedules(all: Bool = false, limit: Int = 100) throws -> [RevisionSchedule] {
        try rows(
            """
            SELECT id, revision, due_at, author, message, created_at, state FROM rule_schedules
            \(all ? "" : "WHERE state = 'pending'") ORDER BY due_at, id LIMIT ?
            """, [.integer(Int64(limit))], RevisionSchedule.make)
    }

    /// The schedule `id`, nil when there is none.
    public func revisionSchedule(_ id: Int64) throws -> RevisionSchedule? {
        try first(
            "SELECT id, revision, due_at, author, message, created_at, state FROM rule_schedules WHERE id = ?",
            [.integer(id)], RevisionSchedule.make)
    }

    /// When the next pending schedule is due (nil: none).
    public func nextScheduledActivation() throws -> Double? {
        try first("SELECT MIN(due_at) FROM rule_schedules WHERE state = 'pending'", []) { row in
            row.isNull(0) ? nil : row.real(0)
        } ?? nil
    }
}

extension Store {
    /// Writes a revision setting.
    public func setRevisionSetting(_ key: String, _ value: String) throws {
        try run(
            "INSERT INTO revision_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }

    /// Gives a draft (a kept revision never active) its author's new message: the one they
    /// publish it with, rather than the one a preview kept it with.
    public func renameDraft(_ revision: String, author: String, message: String) throws {
        try run(
            """
            UPDATE rule_revisions SET message = ? WHERE revision = ? AND author = ? AND message <> ?
            AND NOT EXISTS (SELECT 1 FROM rule_activations WHERE revision = ?)
            """, [.text(message), .text(revision), .text(author), .text(message), .text(revision)])
    }

    /// Records `approver`'s approval of `revision` (a full id: its content).
    public func insertApproval(_ approval: RevisionApproval) throws {
        try run(
            "INSERT INTO rule_approvals (revision, approver, message, at) VALUES (?, ?, ?, ?)",
            [.text(approval.revision), .text(approval.approver), .text(approval.message), .real(approval.at)])
    }

    /// Keeps a pending schedule; returns its id. Tells the instances (they watch for it).
    public func insertSchedule(revision: String, dueAt: Double, author: String, message: String, at: Double) throws
        -> Int64
    {
        try run(
            "INSERT INTO rule_schedules (revision, due_at, author, message, created_at, state) VALUES (?, ?, ?, ?, ?, 'pending')",
            [.text(revision), .real(dueAt), .text(author), .text(message), .real(at)])
        let id =
            try first(
                "SELECT MAX(id) FROM rule_schedules WHERE revision = ? AND created_at = ?",
                [.text(revision), .real(at)]
            ) { $0.integer(0) } ?? 0
        try notify(ruleActivationsChannel)
        return id
    }

    /// Moves a pending schedule to `state` (`done` or `cancelled`); false when it was not
    /// pending any more (another instance took it, or it was cancelled): only one caller wins.
    public func settleSchedule(_ id: Int64, state: String) throws -> Bool {
        let changed = try run(
            "UPDATE rule_schedules SET state = ? WHERE id = ? AND state = 'pending'", [.text(state), .integer(id)])
        if changed > 0 { try notify(ruleActivationsChannel) }
        return changed > 0
    }
}

extension Store {
    /// Activates every pending schedule due by `now`, each in its own transaction, audited as
    /// `scheduled_activate` under its author. Each is taken by one caller only: every serving
    /// instance calls this when one falls due. Returns the ones this call activated.
    @discardableResult
    public func activateDueSchedules(now at: Double) throws -> [RevisionSchedule] {
        var done: [RevisionSchedule] = []
        for schedule in try revisionSchedules() where schedule.dueAt <= at {
            let took = try transaction { () throws -> Bool in
                guard try settleSchedule(schedule.id, state: "done") else { return false }
                try activateRuleRevision(schedule.revision, author: schedule.author, message: schedule.message, at: at)
                try appendAudit(
                    AuditEntry(
                        at: at, actor: schedule.author, action: "scheduled_activate", subject: schedule.revision,
                        message: schedule.message,
                        detail: [
                            "due_at": .string(Timestamp.format(schedule.dueAt)),
                            "late_seconds": .number(max(0, at - schedule.dueAt)),
                            "schedule": .number(Double(schedule.id)),
                        ]))
                return true
            }
            if took { done.append(schedule) }
        }
        return done
    }
}

/// The setting that holds the approvals an activation needs.
public let requiredApprovalsSetting = "required_approvals"

/// One person's approval of a revision's content.
public struct RevisionApproval: Sendable, Equatable {
    public var revision: String
    public var approver: String
    public var message: String
    public var at: Double

    public init(revision: String, approver: String, message: String, at: Double) {
        self.revision = revision
        self.approver = approver
        self.message = message
        self.at = at
    }

    public var json: JSON {
        [
            "approver": .string(approver), "message": .string(message), "at": .string(Timestamp.format(at)),
        ]
    }
}

/// A revision to activate at a time.
public struct RevisionSchedule: Sendable, Equatable {
    public var id: Int64
    public var revision: String
    public var dueAt: Double
    public var author: String
    public var message: String
    public var createdAt: Double
    /// `pending`, `done` or `cancelled`.
    public var state: String

    static func make(_ row: any SQLRow) throws -> RevisionSchedule {
        RevisionSchedule(
            id: row.integer(0), revision: row.text(1) ?? "", dueAt: row.real(2), author: row.text(3) ?? "",
            message: row.text(4) ?? "", createdAt: row.real(5), state: row.text(6) ?? "")
    }

    public var json: JSON {
        [
            "id": .number(Double(id)), "revision": .string(revision), "due_at": .string(Timestamp.format(dueAt)),
            "author": .string(author), "message": .string(message), "created_at": .string(Timestamp.format(createdAt)),
            "state": .string(state),
        ]
    }
}
