import Core
import Features
import RevisionStore
import Revisions
import Store
import TestSupport
import Testing

/// Approvals and schedules of revisions, on SQLite and PostgreSQL: who may approve, what an
/// approval is bound to, rollbacks and emergencies, and schedules taken once.
@Suite struct ApprovalTests {
    /// A store with three kept revisions (tiny, so that no gate runs: activation does not run
    /// them), `required` approvals, and a publisher whose clock the test moves.
    final class Setting {
        let store: TestStore
        var clock = 1_000.0
        var publisher: RevisionPublisher!
        let a = Setting.revision("a"), b = Setting.revision("b"), c = Setting.revision("c")

        init(_ backend: String, required: Int) throws {
            store = try TestStore(backend, schema: Features.all.schema)
            publisher = RevisionPublisher(store: store.store, engine: Features.all, now: { [unowned self] in clock })
            try store.store.setRevisionSetting(requiredApprovalsSetting, String(required))
            for (id, author) in [(a, "ann"), (b, "ann"), (c, "bob")] {
                try store.store.insertRuleRevision(
                    RuleRevision(id: id, parent: nil, author: author, message: id, createdAt: 0, gates: [:]),
                    files: try RevisionFiles(["Rules/notes.md": id]))
            }
        }

        static func revision(_ letter: String) -> String { String(repeating: letter, count: 64) }

        func tick() -> Double {
            clock += 10
            return clock
        }

        func refusal(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    @Test(arguments: TestStore.names)
    func activationNeedsApprovalsByOthers(backend: String) throws {
        let s = try Setting(backend, required: 2)
        _ = s.tick()
        let own = s.refusal { try s.publisher.approve(s.a, approver: "ann", message: "mine") }
        #expect(own?.contains("someone else approves it") == true, "\(own ?? "accepted")")
        #expect(s.refusal { try s.publisher.activate(s.a, author: "ann", message: "go") }?.contains("has 0") == true)
        _ = s.tick()
        try s.publisher.approve(s.a, approver: "bob", message: "ok")
        #expect(
            s.refusal { try s.publisher.activate(s.a, author: "ann", message: "go") }?.contains("has 1 (bob)") == true)
        // The one who activates does not count for their own activation.
        _ = s.tick()
        try s.publisher.approve(s.a, approver: "carl", message: "ok")
        #expect(s.refusal { try s.publisher.activate(s.a, author: "bob", message: "go") } != nil)
        _ = s.tick()
        try s.publisher.activate(s.a, author: "ann", message: "go")
        #expect(try s.store.store.activeRevision()?.revision == s.a)
        #expect(try s.store.store.auditEntries().map(\.action) == ["activate", "approve", "approve"])
    }

    /// An approval is of a revision's content: another content (an edit) has none of it.
    @Test(arguments: TestStore.names)
    func anEditHasNoneOfTheApprovals(backend: String) throws {
        let s = try Setting(backend, required: 1)
        _ = s.tick()
        try s.publisher.approve(s.a, approver: "bob", message: "ok")
        #expect(try s.publisher.approvalState(of: s.store.store.ruleRevision(s.a)).satisfied)
        #expect(try !s.publisher.approvalState(of: s.store.store.ruleRevision(s.b)).satisfied)
        #expect(s.refusal { try s.publisher.activate(s.b, author: "ann", message: "go") } != nil)
    }

    /// An activation uses its approvals up: rolling back to it needs new ones, unless it is an
    /// emergency (audited as one). Off (0), nothing is asked.
    @Test(arguments: TestStore.names)
    func rollbackNeedsApprovalUnlessAnEmergency(backend: String) throws {
        let s = try Setting(backend, required: 1)
        for id in [s.a, s.b] {
            _ = s.tick()
            try s.publisher.approve(id, approver: "bob", message: "ok")
            _ = s.tick()
            try s.publisher.activate(id, author: "ann", message: "live")
        }
        _ = s.tick()
        let refused = s.refusal { try s.publisher.activate(s.a, author: "ann", message: "back") }
        #expect(refused?.contains("rolling back to") == true, "\(refused ?? "accepted")")
        #expect(s.refusal { try s.publisher.activate(s.c, author: "ann", message: "x", emergency: true) } != nil)
        try s.publisher.activate(s.a, author: "ann", message: "site down", emergency: true)
        #expect(try s.store.store.activeRevision()?.revision == s.a)
        #expect(try s.store.store.auditEntries().first?.action == "emergency_rollback")
        try s.store.store.setRevisionSetting(requiredApprovalsSetting, "0")
        _ = s.tick()
        try s.publisher.activate(s.c, author: "ann", message: "no approvals asked")
        #expect(try s.store.store.activeRevision()?.revision == s.c)
    }

    /// A schedule needs the approvals when it is made; at its time one caller takes it (every
    /// instance tries); a cancelled one never runs; both are audited.
    @Test(arguments: TestStore.names)
    func schedulesRunOnceAndCanBeCancelled(backend: String) throws {
        let s = try Setting(backend, required: 1)
        let now = s.tick()
        #expect(s.refusal { _ = try s.publisher.schedule(s.b, at: now + 60, author: "ann", message: "later") } != nil)
        try s.publisher.approve(s.b, approver: "bob", message: "ok")
        try s.publisher.approve(s.c, approver: "ann", message: "ok")
        #expect(s.refusal { _ = try s.publisher.schedule(s.b, at: now - 1, author: "ann", message: "past") } != nil)
        let b = try s.publisher.schedule(s.b, at: now + 60, author: "ann", message: "at noon")
        let c = try s.publisher.schedule(s.c, at: now + 120, author: "bob", message: "later still")
        #expect(try s.store.store.nextScheduledActivation() == now + 60)
        #expect(try s.publisher.runDueSchedules().isEmpty, "nothing is due yet")
        #expect(try s.publisher.cancelSchedule(c.id, author: "bob", message: "not now"))
        #expect(try !s.publisher.cancelSchedule(c.id, author: "bob", message: "again"))
        s.clock = now + 60
        let other = try s.store.connect()  // another instance on the same store
        #expect(try s.publisher.runDueSchedules().map(\.id) == [b.id])
        #expect(try other.activateDueSchedules(now: now + 61).isEmpty, "taken once")
        #expect(try s.store.store.activeRevision()?.revision == s.b)
        #expect(try s.store.store.revisionSchedules(all: true).map(\.state) == ["done", "cancelled"])
        let actions = try s.store.store.auditEntries().map(\.action)
        #expect(actions.prefix(3) == ["scheduled_activate", "cancel_schedule", "schedule"], "\(actions)")
    }
}
