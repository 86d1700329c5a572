import Core
import Engine
import Foundation
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

@Suite struct IngestTests {
    @Test(arguments: [2, 10])
    func theSameEventManyTimesCountsOnce(_ copies: Int) throws {
        let database = TestDatabase(schema: .core)
        let ingestor = Fixtures.ingestor(database)
        _ = ingestor.ingest([Fixtures.registration()])
        let event = Fixtures.weight("w1")
        let inOneBatch = ingestor.ingest(Array(repeating: event, count: copies))
        #expect(inOneBatch.map(\.status) == [.accepted] + Array(repeating: .duplicate, count: copies - 1))
        for _ in 0..<copies {
            let again = ingestor.ingest([event])
            #expect(again.first?.status == .duplicate)
            #expect(again.first?.effects == inOneBatch[0].effects, "a duplicate returns the original result")
        }
        #expect(try database.count(table: "events") == 2)
        #expect(try database.count(table: "profile_records") == 1)
        #expect(try database.count(table: "reminders") == 1)
        #expect(try database.count(table: "analytics_outbox") == 1)
    }

    /// Late window 7 days and clock skew 5 minutes, both inclusive, to the millisecond.
    static let boundaries: [(String, Double, IngestResult.Status, String?)] = [
        ("exactly 7 days old", -7 * 86_400, .accepted, nil),
        ("7 days and 1 ms old", -7 * 86_400 - 0.001, .rejected, "too_late"),
        ("exactly 5 minutes ahead", 300, .accepted, nil),
        ("5 minutes and 1 ms ahead", 300.001, .rejected, "in_future"),
        ("now", 0, .accepted, nil),
    ]

    @Test(arguments: boundaries)
    func timeWindowsAtTheirExactBoundaries(
        _ name: String, _ offset: Double, _ status: IngestResult.Status, _ code: String?
    ) throws {
        let database = TestDatabase(schema: .core)
        let ingestor = Fixtures.ingestor(database)
        let occurred = Timestamp.format(Fixtures.now + offset)
        let event: JSON = ["event_id": "e", "user_id": "u", "type": "journey_opened", "occurred_at": .string(occurred)]
        let result = try #require(ingestor.ingest([event]).first)
        #expect(result.status == status, "\(name): \(result.json.compactText)")
        #expect(result.code == code)
    }

    @Test func outOfOrderArrivalGivesTheSameEffects() throws {
        var events: [JSON] = [Fixtures.registration(at: "2026-11-25T08:00:00Z")]
        for i in 0..<40 {
            let at = Timestamp.format(Timestamp.parse("2026-11-25T09:00:00Z")! + Double(i) * 3600)
            events.append(Fixtures.weight("w\(i)", kg: 10 + Double(i) / 10, at: at))
            events.append([
                "event_id": .string("o\(i)"), "user_id": "u1", "type": "journey_opened", "occurred_at": .string(at),
                "dog_id": "q-123",
            ])
        }
        let inOrder = TestDatabase(schema: .core)
        let orderedResults = Fixtures.ingestor(inOrder).ingest(events)
        let shuffled = TestDatabase(schema: .core)
        var generator = LinearCongruentialGenerator(seed: 42)
        let registration = events[0]
        let rest = events.dropFirst().shuffled(using: &generator)
        let ingestor = Fixtures.ingestor(shuffled)
        var shuffledResults = ingestor.ingest([registration])
        for chunk in stride(from: 0, to: rest.count, by: 7) {
            shuffledResults += ingestor.ingest(Array(rest[chunk..<min(chunk + 7, rest.count)]))
        }
        func byEvent(_ results: [IngestResult]) -> [String: [JSON]] {
            Dictionary(uniqueKeysWithValues: results.map { ($0.eventID ?? "", $0.effects) })
        }
        #expect(byEvent(orderedResults) == byEvent(shuffledResults))
        let query =
            "SELECT group_concat(kind || payload || recorded_at, ';') FROM (SELECT * FROM profile_records ORDER BY recorded_at)"
        #expect(
            try inOrder.store.connection.prepare(query).first { $0.text(0) }
                == shuffled.store.connection.prepare(query).first { $0.text(0) })
        let reminders =
            "SELECT group_concat(kind || due_at || payload, ';') FROM (SELECT * FROM reminders ORDER BY due_at)"
        #expect(
            try inOrder.store.connection.prepare(reminders).first { $0.text(0) }
                == shuffled.store.connection.prepare(reminders).first { $0.text(0) })
    }

    struct Exploding: EventConsumer {
        let name = "exploding"
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
            if event.payload["explode"] == true { throw Boom() }
            return [.analyticsEvent(name: "seen", properties: [:])]
        }
    }

    @Test func aConsumerThatThrowsRejectsTheEventAndAppliesNothing() throws {
        let database = TestDatabase(schema: .core)
        let loaded = Fixtures.bundledRules()
        let consumers: [any EventConsumer] = Ingestor.defaultConsumers(for: loaded.ruleSet!) + [Exploding()]
        let ingestor = Fixtures.ingestor(database, consumers: consumers)
        let results = ingestor.ingest([
            Fixtures.registration(),
            [
                "event_id": "bad", "user_id": "new-user", "type": "journey_opened",
                "occurred_at": "2026-11-29T11:00:00Z",
                "payload": ["explode": true],
            ],
            Fixtures.weight("good"),
        ])
        #expect(results.map(\.status) == [.accepted, .rejected, .accepted])
        #expect(results[1].code == "consumer_failed")
        #expect(results[1].message == "exploding: boom")
        #expect(try database.count(table: "users") == 1, "not even the new user of the refused event is kept")
        #expect(try database.count(table: "events") == 2)
        #expect(try database.count(table: "profile_records") == 1)
        #expect(try database.count(table: "analytics_outbox") == 3)  // seen ×2, weight_saved ×1
    }

    struct Dangling: EventConsumer {
        let name = "dangling"
        func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
            guard event.type == "tap" else { return [] }
            return [
                .recordAdded(
                    ProfileRecord(
                        dogID: "no-such-dog", kind: "x", recordedAt: 0, recordedAtText: "", payload: [:], source: "test"
                    ))
            ]
        }
    }

    @Test func aStoreErrorRefusesOnlyThatEvent() throws {
        let database = TestDatabase(schema: .core)
        let ingestor = Fixtures.ingestor(database, consumers: [Dangling()])
        let results = ingestor.ingest([
            ["event_id": "a", "user_id": "u", "type": "tap", "occurred_at": "2026-11-29T11:00:00Z"],
            ["event_id": "b", "user_id": "u", "type": "journey_opened", "occurred_at": "2026-11-29T11:00:00Z"],
        ])
        #expect(results.map(\.status) == [.rejected, .accepted])
        #expect(results[0].code == "storage_error")
        #expect(results[0].message?.contains("FOREIGN KEY") == true)
        #expect(try database.count(table: "events") == 1)
    }

    @Test func effectsAreComputedAtEventTime() throws {
        let database = TestDatabase(schema: .core)
        let ingestor = Fixtures.ingestor(database)
        _ = ingestor.ingest([Fixtures.registration(at: "2026-11-23T08:00:00Z")])
        let result = try #require(ingestor.ingest([Fixtures.weight("w", at: "2026-11-24T10:00:00+01:00")]).first)
        let reminder = try #require(result.effects.first { $0["type"] == "reminder_scheduled" })
        #expect(reminder["due_at"] == "2026-12-08T09:00:00Z", "14 days after occurred_at, not after receipt")
        let record = try #require(result.effects.first { $0["type"] == "record_added" })
        #expect(record["recorded_at"] == "2026-11-24T10:00:00+01:00")
    }

    @Test func ruleThatBreaksRefusesWithItsName() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "r.yaml",
            """
            rules:
              - rule: bad.effect
                kind: event_effects
                expr: '[{type: "record_added", kind: "x", payload: {}, colour: "red"}]'
              - rule: bad.type
                kind: event_effects
                expr: 'select(.event.type == "tap") | [{type: "teleport"}]'
            """)
        let loaded = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil).load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let database = TestDatabase(schema: .core)
        let ingestor = Ingestor(
            store: database.store, evaluator: evaluator, policy: IngestPolicy(clock: { Fixtures.now }))
        let results = ingestor.ingest([
            Fixtures.registration(),
            ["event_id": "t", "user_id": "u1", "type": "tap", "occurred_at": "2026-11-29T11:00:00Z"],
        ])
        #expect(results[0].status == .rejected)
        #expect(
            results[0].message
                == "rule `bad.effect` gave an effect the engine cannot use: unknown field `colour` in a record_added effect"
        )
        #expect(results[1].message?.contains("record_added needs `dog_id` (the event has none)") == true)
    }
}
