import Core
import Engine
import Features
import Store
import TestSupport
import Testing

/// A batch's opens read their dog's opens and their user's return event once, at the batch's
/// start, and an open the batch stores updates what was read: the return events counted are
/// those of ingesting each open in a batch of its own, on both backends.
@Suite struct JourneyReturnBatchTests {
    static let registered = Timestamp.parse("2026-11-20T08:00:00Z")!

    /// `opens` (hours after the first open) of two owners' dogs, interleaved, ingested in one
    /// batch or one event per batch: the `journey_return_d7` rows.
    static func returns(backend name: String, opens: [Double], oneBatch: Bool) throws -> [[String]] {
        let backend = try TestStore(name, schema: Features.all.schema)
        // Received after the last open, with a late window that takes them all.
        let now = registered + 12 * 86_400
        let ingestor = Features.all.makeIngestor(
            store: backend.store, evaluator: try Bundled.evaluator(),
            policy: IngestPolicy(lateWindow: .seconds(30 * 86_400), clock: { now }), cores: 1)
        func event(_ id: String, _ type: String, dog: String, at: Double, _ payload: JSONObject = [:]) -> JSON {
            [
                "event_id": .string(id), "user_id": .string("owner-\(dog)"), "type": .string(type),
                "dog_id": .string(dog), "occurred_at": .string(Timestamp.format(at)), "payload": .object(payload),
            ]
        }
        let dogs = ["miso", "rex"]
        let registrations = dogs.map {
            event("reg", "dog_registered", dog: $0, at: registered, JourneyBehaviourTests.registration)
        }
        #expect(ingestor.ingest(registrations).allSatisfy { $0.status == .accepted })
        let first = registered + 3600
        let batch = ([0] + opens).enumerated().flatMap { n, hours in
            dogs.map { dog in event("open-\(n)", "journey_opened", dog: dog, at: first + hours * 3600) }
        }
        let results = oneBatch ? ingestor.ingest(batch) : batch.flatMap { ingestor.ingest([$0]) }
        #expect(results.allSatisfy { $0.status == .accepted }, "\(results.map(\.json))")
        return try backend.store.rows(
            """
            SELECT id, user_id, occurred_at, properties FROM analytics_outbox WHERE name = 'journey_return_d7'
            ORDER BY id
            """
        ) { [String($0.integer(0)), $0.text(1) ?? "", Timestamp.format($0.real(2)), $0.text(3) ?? ""] }
    }

    @Test(arguments: TestStore.names, JourneyAnalyticsTests.returns)
    func opensInOneBatchCountTheReturnsOfOpensOneByOne(
        backend name: String, _ testCase: JourneyAnalyticsTests.ReturnCase
    ) throws {
        let oneByOne = try Self.returns(backend: name, opens: testCase.opens, oneBatch: false)
        let batched = try Self.returns(backend: name, opens: testCase.opens, oneBatch: true)
        #expect(batched == oneByOne)
        let expected = testCase.counted.map { Timestamp.format(Self.registered + 3600 + $0 * 3600) }
        #expect(oneByOne.map { $0[2] } == (expected.map { [$0, $0] } ?? []))
    }
}
