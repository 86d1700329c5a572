import Core
import Engine
import Foundation
import RuleEngine
import TestSupport
import Testing

/// A rule quarantined for one user's events answers with its fallback for them on every thread
/// that computes a batch (the parallel precompute included); another user's events run it.
@Suite struct QuarantinedIngestTests {
    static func event(_ id: String, user: String) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "spin_test",
            "occurred_at": .string(Timestamp.format(Fixtures.now - 60)),
        ]
    }

    @Test(arguments: [1, 2])
    func aQuarantineForOneUserHoldsOnEveryThread(cores: Int) throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "spin.yaml",
            """
            rule: test.spin
            kind: event_effects
            description: Loops on spin_test events.
            events: [spin_test]
            expr: 'def f: f; f'
            fallback: '[]'
            budget: 20ms

            """)
        let loaded = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil).load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        evaluator.quarantinedInputs["test.spin"] = ["user:u1"]
        let database = TestDatabase(schema: .core)
        let ingestor = Ingestor(
            store: database.store, evaluator: evaluator, policy: IngestPolicy(clock: { Fixtures.now }), cores: cores)
        let results = ingestor.ingest((0..<20).map { Self.event("s\($0)", user: "u1") })
        #expect(results.map(\.status) == Array(repeating: .accepted, count: 20), "\(results.map(\.json))")
        let other = ingestor.ingest([Self.event("s0", user: "u2")])
        #expect(other.first?.status == .rejected && other.first?.message?.contains("budget") == true)
    }
}
