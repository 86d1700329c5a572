import Core
import Store
import TestSupport
import Testing

@testable import Engine

/// Reminders held for a batch and merged at its end leave the rows (and their ids) that
/// merging each one in turn leaves: whatever the due times, ties, payloads and flush points.
struct ReminderMergesTests {
    /// One of `sequenceCount` random schedules on `backend`.
    @Test(arguments: TestStore.names.flatMap { name in (0..<Self.sequenceCount).map { (name, UInt64($0)) } })
    func heldMergesLeaveTheRowsOfMergingEachInTurn(backend name: String, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let steps = (0..<40).map { _ in Step.random(using: &random) }
        let direct = try TestStore(name, schema: .core)
        let held = try TestStore(name, schema: .core)
        let events = try Self.seed(direct.store)
        #expect(try Self.seed(held.store) == events)

        var merges = ReminderMerges()
        for step in steps {
            switch step {
            case .flush:
                try merges.flush(to: held.store)
            case .schedule(let reminder, let eventIndex):
                let event = eventIndex.map { events[$0] }
                try direct.store.scheduleReminder(reminder, event: event)
                try merges.add(reminder, event: event, to: held.store)
            }
        }
        try merges.flush(to: held.store)
        try merges.flush(to: held.store)  // nothing is held twice
        let expected = try Self.rows(direct.store)
        #expect(try Self.rows(held.store) == expected, "steps: \(steps)")
        #expect(!expected.isEmpty)
    }

    static let sequenceCount = 24

    /// A consumer that reads reminders sees those of the batch's earlier events; one that says
    /// it does not (dog registration) leaves them held.
    @Test(arguments: [true, false])
    func aConsumerThatReadsRemindersSeesTheBatchsEarlierOnes(readsReminders: Bool) throws {
        let database = TestDatabase(schema: .core)
        let loaded = Fixtures.bundledRules()
        let counter = PendingReminderCounter(readsReminders: readsReminders)
        let ingestor = Fixtures.ingestor(
            database, consumers: Ingestor.defaultConsumers(for: loaded.evaluator!.ruleSet) + [counter])
        let count: JSON = [
            "event_id": "c1", "user_id": "u1", "type": "count", "occurred_at": "2026-11-29T10:05:00+01:00",
        ]
        let results = ingestor.ingest([Fixtures.registration(), Fixtures.weight("w1"), count])
        #expect(results.map(\.status) == [.accepted, .accepted, .accepted])
        let seen = results[2].effects.first?["properties"]?["pending"]?.numberValue
        #expect(seen == (readsReminders ? 1 : 0))
        #expect(try database.store.dueReminders(before: .infinity, limit: 10).map(\.kind) == ["weigh_again"])
    }

    /// Counts the pending reminders as it sees them, for `count` events.
    struct PendingReminderCounter: EventConsumer {
        let name = "pending_reminders"
        let readsReminders: Bool

        func readsReminders(for event: Event) -> Bool { readsReminders && event.type == "count" }

        func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
            guard event.type == "count" else { return [] }
            let pending = try context.store.first("SELECT count(*) FROM reminders WHERE status = 'pending'", []) {
                $0.integer(0)
            }
            return [.analyticsEvent(name: "pending", properties: ["pending": .number(Double(pending ?? -1))])]
        }
    }

    enum Step: CustomStringConvertible {
        case schedule(Reminder, event: Int?)
        case flush

        /// Few users, dogs, kinds, due times and payloads, so that kinds repeat and ties happen.
        static func random(using random: inout SplitMix64) -> Step {
            if Int.random(in: 0..<8, using: &random) == 0 { return .flush }
            let reminder = Reminder(
                userID: ["u1", "u2"].randomElement(using: &random)!, dogID: ["d1", nil].randomElement(using: &random)!,
                kind: ["walk", "weigh"].randomElement(using: &random)!,
                dueAt: Double(Int.random(in: 1...5, using: &random) * 10),
                payload: [.string("a"), .string("b"), ["kg": 12], ["leads_to": "b1", "text": "t"], ["leads_to": "b2"]]
                    .randomElement(using: &random)!,
                status: Int.random(in: 0..<10, using: &random) == 0 ? "cancelled" : "pending")
            return .schedule(reminder, event: [0, 1, 2, nil].randomElement(using: &random)!)
        }

        var description: String {
            switch self {
            case .flush: "flush"
            case .schedule(let r, let event):
                "\(r.userID)/\(r.dogID ?? "-")/\(r.kind)@\(r.dueAt)=\(r.payload.compactText)[\(r.status)] e\(event.map(String.init) ?? "-")"
            }
        }
    }

    /// Two users, one dog, three events; the events' row ids.
    static func seed(_ store: any Store) throws -> [Int64] {
        for user in ["u1", "u2"] { try store.ensureUser(user, firstSeenAt: 1) }
        try store.insertDog(
            DogProfile(id: "d1", userID: "u1", name: "Rex", breed: "collie", metrics: [:], registeredAt: 1))
        return try (0..<3).map { index in
            try store.insertEvent(
                StoredEvent(
                    userID: "u1", eventID: "e\(index)", type: "weight_saved", dogID: "d1", occurredAt: 2,
                    occurredAtText: "2", receivedAt: 3, payload: [:], outcome: [], ruleRevision: "r",
                    provenance: nil))
        }
    }

    static func rows(_ store: any Store) throws -> [String] {
        try store.rows(
            """
            SELECT id, user_id, dog_id, kind, due_at, payload, status, runner_due, runner_payload, event
            FROM reminders ORDER BY id
            """
        ) { row in
            (Int32(0)..<10).map { row.isNull($0) ? "null" : row.text($0) ?? "?" }.joined(separator: "|")
        }
    }
}
