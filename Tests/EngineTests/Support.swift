import Core
import Engine
import JQ
import RuleEngine
import Store
import TestSupport

enum Fixtures {
    /// The bundled event rules (Rules/events: records, analytics, reminders): the engine's
    /// tests need no feature's documents.
    static func bundledRules() -> RuleSetLoader.Result {
        RuleSetLoader(rulesDirectory: Repository.rules + "/events", pluginsDirectory: nil).load()
    }

    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!

    /// An ingestor over `database` with the bundled rules and a fixed clock.
    static func ingestor(_ database: TestDatabase, now: Double = now, consumers: [any EventConsumer]? = nil) -> Ingestor
    {
        let loaded = bundledRules()
        precondition(loaded.evaluator != nil, "\(loaded.diagnostics)")
        return Ingestor(
            store: database.store, evaluator: loaded.evaluator!, consumers: consumers,
            policy: IngestPolicy(clock: { now }))
    }

    static func registration(
        user: String = "u1", dog: String = "q-123", id: String = "reg-1", at: String = "2026-11-29T09:00:00+01:00"
    ) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "dog_registered", "occurred_at": .string(at),
            "dog_id": .string(dog),
            "payload": [
                "name": "Q", "age_range": "4-8m", "breed": "border_collie", "timezone": "Europe/Berlin",
                "metrics": ["bond": 55, "impulse_control": 22],
            ],
        ]
    }

    static func weight(
        _ id: String, kg: Double = 12.6, user: String = "u1", dog: String = "q-123",
        at: String = "2026-11-29T10:00:00+01:00"
    ) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "weight_saved", "occurred_at": .string(at),
            "dog_id": .string(dog), "payload": ["kg": .number(kg)],
        ]
    }
}
