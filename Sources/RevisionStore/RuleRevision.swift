import Core

/// A published rule set: immutable, named by its content (``RevisionFiles/revision``), with
/// who published it, why, from which parent, and what its gates found.
public struct RuleRevision: Sendable, Equatable {
    public var id: String
    /// The revision active when this one was published (nil for the first).
    public var parent: String?
    public var author: String
    public var message: String
    public var createdAt: Double
    /// The gate report it passed (``GateReport/json``).
    public var gates: JSON

    public init(id: String, parent: String?, author: String, message: String, createdAt: Double, gates: JSON) {
        self.id = id
        self.parent = parent
        self.author = author
        self.message = message
        self.createdAt = createdAt
        self.gates = gates
    }

    /// The first 12 characters, as people name a revision.
    public var shortID: String { String(id.prefix(12)) }

    public var json: JSON {
        [
            "revision": .string(id), "parent": parent.map(JSON.string) ?? .null, "author": .string(author),
            "message": .string(message), "created_at": .string(Timestamp.format(createdAt)), "gates": gates,
        ]
    }
}

/// One activation: from `activatedAt` on, `revision` is what the engine serves.
public struct RevisionActivation: Sendable, Equatable {
    public var id: Int64
    public var revision: String
    public var author: String
    public var message: String
    public var activatedAt: Double

    public var json: JSON {
        [
            "revision": .string(revision), "author": .string(author), "message": .string(message),
            "activated_at": .string(Timestamp.format(activatedAt)),
        ]
    }
}

/// One line of the audit trail: who did what to which thing, when and why.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Double
    /// The named credential (or the CLI user) that acted.
    public var actor: String
    /// `publish`, `activate`, `rollback`, `quarantine`, `lift_quarantine`.
    public var action: String
    /// What it acted on: a revision id, a rule id.
    public var subject: String
    /// Why (the message given).
    public var message: String
    /// What changed, summarised (a diff summary, a quarantine's reason).
    public var detail: JSON

    public init(
        id: Int64 = 0, at: Double, actor: String, action: String, subject: String, message: String, detail: JSON
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.subject = subject
        self.message = message
        self.detail = detail
    }

    public var json: JSON {
        [
            "id": .number(Double(id)), "at": .string(Timestamp.format(at)), "actor": .string(actor),
            "operation": .string(action), "subject": .string(subject), "message": .string(message), "detail": detail,
        ]
    }
}
