import Core
import RevisionStore
import Store

/// Approvals and scheduled activations: with `journey serve --require-approvals N` (kept in the
/// store's revision settings, so `journey publish` and `journey rollback` obey it too) a
/// revision is activated only once N people other than its author, and other than whoever
/// activates it, approved its content since it was last active. An edit is another revision
/// (its id is its content's hash), so it starts with no approvals. A rollback needs them too,
/// unless it is an emergency (audited as `emergency_rollback`).
extension RevisionPublisher {
    /// Where `revision` stands: approvals needed, given, and by whom.
    public func approvalState(of revision: RuleRevision, activator: String? = nil) throws -> ApprovalState {
        let needed = try store.requiredApprovals()
        let approvals = try store.pendingApprovals(of: revision.id)
        var approvers: [String] = []
        for approval in approvals
        where approval.approver != revision.author && approval.approver != activator
            && !approvers.contains(approval.approver)
        {
            approvers.append(approval.approver)
        }
        return ApprovalState(needed: needed, approvers: approvers)
    }

    /// Throws ``ApprovalRequired`` unless `revision` may be activated by `activator` now.
    func requireApprovals(_ revision: RuleRevision, activator: String, doing: String) throws {
        let state = try approvalState(of: revision, activator: activator)
        guard state.satisfied else {
            throw ApprovalRequired(
                revision: revision.id, needed: state.needed, have: state.approvers.count,
                message:
                    "\(doing) revision \(revision.shortID) needs \(state.needed) approval\(state.needed == 1 ? "" : "s") by people other than its author and whoever activates it; it has \(state.approvers.count)\(state.approvers.isEmpty ? "" : " (\(state.approvers.joined(separator: ", ")))")"
            )
        }
    }

    /// Records `approver`'s approval of revision `id` (not its author's own); returns the state.
    @discardableResult
    public func approve(_ id: String, approver: String, message: String) throws -> ApprovalState {
        let revision = try store.ruleRevision(id)
        guard approver != revision.author else {
            throw PublishError(message: "\(approver) wrote revision \(revision.shortID): someone else approves it")
        }
        let at = now()
        try store.transaction {
            try store.insertApproval(
                RevisionApproval(revision: revision.id, approver: approver, message: message, at: at))
            try store.appendAudit(
                AuditEntry(
                    at: at, actor: approver, action: "approve", subject: revision.id, message: message, detail: .null))
        }
        return try approvalState(of: revision)
    }

    /// Schedules revision `id` to become active at `dueAt` (approvals are checked now).
    public func schedule(_ id: String, at dueAt: Double, author: String, message: String) throws -> RevisionSchedule {
        let revision = try store.ruleRevision(id)
        let at = now()
        guard dueAt > at else { throw PublishError(message: "the time to activate at is in the past") }
        try requireApprovals(revision, activator: author, doing: "scheduling")
        let scheduleID = try store.transaction { () throws -> Int64 in
            let scheduleID = try store.insertSchedule(
                revision: revision.id, dueAt: dueAt, author: author, message: message, at: at)
            try store.appendAudit(
                AuditEntry(
                    at: at, actor: author, action: "schedule", subject: revision.id, message: message,
                    detail: ["due_at": .string(Timestamp.format(dueAt)), "schedule": .number(Double(scheduleID))]))
            return scheduleID
        }
        guard let schedule = try store.revisionSchedule(scheduleID) else {
            throw PublishError(message: "the schedule was not kept")
        }
        return schedule
    }

    /// Cancels a pending schedule; false when it was not pending any more.
    public func cancelSchedule(_ id: Int64, author: String, message: String) throws -> Bool {
        guard let schedule = try store.revisionSchedule(id) else {
            throw PublishError(message: "no schedule \(id)")
        }
        let at = now()
        return try store.transaction { () throws -> Bool in
            guard try store.settleSchedule(id, state: "cancelled") else { return false }
            try store.appendAudit(
                AuditEntry(
                    at: at, actor: author, action: "cancel_schedule", subject: schedule.revision, message: message,
                    detail: ["due_at": .string(Timestamp.format(schedule.dueAt)), "schedule": .number(Double(id))]))
            return true
        }
    }

    /// Activates every pending schedule due by now (see ``Store/activateDueSchedules(now:)``).
    @discardableResult
    public func runDueSchedules() throws -> [RevisionSchedule] {
        try store.activateDueSchedules(now: now())
    }
}

/// How many approvals a revision needs and who gave them.
public struct ApprovalState: Sendable, Equatable {
    public var needed: Int
    public var approvers: [String]
    public var satisfied: Bool { approvers.count >= needed }

    public var json: JSON {
        [
            "needed": .number(Double(needed)), "have": .number(Double(approvers.count)),
            "approvers": .array(approvers.map(JSON.string)), "satisfied": .bool(satisfied),
        ]
    }
}

/// An activation refused for want of approvals.
public struct ApprovalRequired: Error, Sendable, CustomStringConvertible {
    public var revision: String
    public var needed: Int
    public var have: Int
    public var message: String
    public var description: String { message }
}
