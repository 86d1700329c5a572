import Core
import Engine
import Foundation
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// Computing pure consumers ahead on other cores (within a batch, or pipelined across
/// batches), or before the transaction on the one thread, gives exactly the results and the
/// store of computing everything serially.
@Suite struct ParallelIngestTests {
    /// Events that exercise the dog contexts computed ahead: registrations refused or made
    /// later in the stream, another user's dog, duplicates across batches, bad payloads.
    static func tricky() -> [JSON] {
        var events: [JSON] = []
        for user in 0..<6 {
            let dog = "d\(user)"
            let registration: JSON = [
                "event_id": "reg", "user_id": .string("u\(user)"), "type": "dog_registered",
                "occurred_at": "2026-11-25T08:00:00Z", "dog_id": .string(dog),
                "payload": user == 2
                    ? ["name": "Bad", "age_range": "soon", "timezone": "UTC"]  // refused: weights then see no dog
                    : ["name": .string("Dog \(user)"), "age_range": "4-8m", "timezone": "Europe/Berlin"],
            ]
            if user != 4 { events.append(registration) }  // user 4 never registers its dog
            for i in 0..<20 {
                let at = Timestamp.format(Timestamp.parse("2026-11-25T09:00:00Z")! + Double(i) * 600)
                events.append(
                    Fixtures.weight("w\(i)", kg: i == 7 ? -1 : 5 + Double(i), user: "u\(user)", dog: dog, at: at))
                events.append([
                    "event_id": .string("o\(i)"), "user_id": .string("u\(user)"), "type": "journey_opened",
                    "occurred_at": .string(at), "dog_id": .string(dog),
                ])
            }
            // Someone else's dog, and a duplicate of the first weight.
            events.append(Fixtures.weight("stolen", user: "u\(user)", dog: "d\((user + 1) % 6)"))
            events.append(Fixtures.weight("w0", kg: 5, user: "u\(user)", dog: dog, at: "2026-11-25T09:00:00Z"))
        }
        // A second registration of dog d0 by another user, late in the stream.
        events.append(Fixtures.registration(user: "u5", dog: "d0", id: "steal"))
        return events
    }

    static func batches(_ events: [JSON], size: Int) -> [[Result<JSON, Rejection>]] {
        stride(from: 0, to: events.count, by: size).map { start in
            events[start..<min(start + size, events.count)].map { .success($0) }
        }
    }

    func dump(_ database: TestDatabase) throws -> [String] {
        var rows: [String] = []
        for (table, order) in [
            ("events", "user_id, event_id"), ("dogs", "dog_id"), ("profile_records", "dog_id, recorded_at, payload"),
            ("reminders", "user_id, due_at"), ("analytics_outbox", "user_id, occurred_at, name"),
        ] {
            let columns = table == "events" ? "user_id, event_id, type, payload, outcome, provenance" : "*"
            let sql = "SELECT \(columns) FROM \(table) ORDER BY \(order)"
            try database.store.connection.prepare(sql).query { row in
                var line = table
                var i: Int32 = 0
                while i < (table == "events" ? 4 : 9) {
                    if table != "events", i == 0, table != "dogs" { i += 1; continue }  // skip row ids
                    line += "|" + (row.text(i) ?? "null")
                    i += 1
                }
                rows.append(line)
            }
        }
        return rows
    }

    @Test(arguments: [7, 16, 50])
    func pipelinedAndParallelGiveTheSameAsSerial(_ batchSize: Int) throws {
        let events = Self.tricky()
        let evaluator = try #require(Fixtures.bundledRules().evaluator)

        let serial = TestDatabase(schema: .core)
        let one = Ingestor(
            store: serial.store, evaluator: evaluator, policy: IngestPolicy(clock: { Fixtures.now }), cores: 1)
        let serialResults = Self.batches(events, size: batchSize).flatMap { one.ingest($0) }

        let parallel = TestDatabase(schema: .core)
        let two = Ingestor(
            store: parallel.store, evaluator: try #require(Fixtures.bundledRules().evaluator),
            policy: IngestPolicy(clock: { Fixtures.now }), cores: 2)
        let parallelResults = Self.batches(events, size: batchSize).flatMap { two.ingest($0) }

        let streamed = TestDatabase(schema: .core)
        let pipe = Ingestor(
            store: streamed.store, evaluator: try #require(Fixtures.bundledRules().evaluator),
            policy: IngestPolicy(clock: { Fixtures.now }), cores: 2)
        var streamedResults: [IngestResult] = []
        pipe.ingest(stream: Self.batches(events, size: batchSize)) { streamedResults += $0 }

        // One thread, its pure consumers computed before the transaction (the service's).
        let ahead = TestDatabase(schema: .core)
        let before = Ingestor(
            store: ahead.store, evaluator: try #require(Fixtures.bundledRules().evaluator),
            policy: IngestPolicy(clock: { Fixtures.now }), cores: 1, computesBeforeWriting: true)
        let aheadResults = Self.batches(events, size: batchSize).flatMap { before.ingest($0) }

        #expect(serialResults.count == events.count)
        #expect(parallelResults == serialResults)
        #expect(aheadResults == serialResults)
        #expect(try dump(ahead) == dump(serial))
        #expect(streamedResults == serialResults)
        #expect(try dump(parallel) == dump(serial))
        #expect(try dump(streamed) == dump(serial))
        // The stream is interesting: some of each outcome happened.
        let statuses = Dictionary(grouping: serialResults, by: { $0.code ?? $0.status.rawValue }).mapValues(\.count)
        #expect(statuses["accepted"] ?? 0 > 100)
        #expect(statuses["duplicate"] == 4)
        #expect(statuses["unknown_dog"] ?? 0 >= 40)
        #expect(statuses["invalid"] == 5)
        #expect(statuses["conflict"] == 1)
    }
}
