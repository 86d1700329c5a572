import Core
import Store
import TestSupport
import Testing

/// A reminder that leads to a block (the journey's return: "weigh Q again" → the Progress
/// review) outranks the plain ones of its kind (a rule's "weigh again" after any weight),
/// whatever their due times and the order they arrive in; the best plain one is its runner-up.
@Suite struct ReturnReminderRankTests {
    struct RankCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Due time and payload of each reminder, scheduled in every order.
        var reminders: [(Double, JSON)]
        /// The pending one and its runner-up: `due payload runner_due runner_payload`.
        var kept: String
        var testDescription: String { name }
    }

    static let cases: [RankCase] = [
        RankCase(
            name: "a later plain weight does not replace the return",
            reminders: [(20, ["leads_to": "growth-check", "text": "t"]), (30, ["last_kg": 3])],
            kept: #"20.0 {"leads_to":"growth-check","text":"t"} 30.0 {"last_kg":3}"#),
        RankCase(
            name: "of two plain ones the later is the runner-up",
            reminders: [(30, ["last_kg": 3]), (20, ["leads_to": "growth-check"]), (40, ["last_kg": 4])],
            kept: #"20.0 {"leads_to":"growth-check"} 40.0 {"last_kg":4}"#),
        RankCase(
            name: "of two returns the later wins",
            reminders: [(20, ["leads_to": "a"]), (25, ["leads_to": "b"]), (90, ["last_kg": 4])],
            kept: #"25.0 {"leads_to":"b"} 20.0 {"leads_to":"a"}"#),
        RankCase(
            name: "a payload that only mentions leads_to in a text is plain",
            reminders: [(20, ["note": #""leads_to":"#]), (10, ["leads_to": "a"])],
            kept: #"10.0 {"leads_to":"a"} 20.0 {"note":"\"leads_to\":"}"#),
    ]

    @Test(arguments: TestStore.names.flatMap { name in cases.map { (name, $0) } })
    func theReturnOutranksPlainReminders(backend name: String, _ testCase: RankCase) throws {
        for order in Self.permutations(Array(testCase.reminders.indices)) {
            let backend = try TestStore(name, schema: .core)
            let store = backend.store
            try store.ensureUser("u1", firstSeenAt: 1)
            for index in order {
                let (due, payload) = testCase.reminders[index]
                try store.scheduleReminder(
                    Reminder(userID: "u1", dogID: "d1", kind: "weigh_again", dueAt: due, payload: payload), event: nil)
            }
            let kept = try store.rows("SELECT due_at, payload, runner_due, runner_payload FROM reminders") {
                "\($0.real(0)) \($0.text(1) ?? "") \($0.real(2)) \($0.text(3) ?? "")"
            }
            #expect(kept == [testCase.kept], "\(name), order \(order)")
        }
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        items.count <= 1
            ? [items]
            : items.indices.flatMap { index in
                var rest = items
                let first = rest.remove(at: index)
                return permutations(rest).map { [first] + $0 }
            }
    }
}
