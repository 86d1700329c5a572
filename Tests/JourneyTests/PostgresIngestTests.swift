import Core
import Engine
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// The whole ingest path (every feature's consumers and stores) on PostgreSQL gives the
/// results and the rows it gives on SQLite: each of the examples, twice (the second time
/// every event is a duplicate).
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresIngestTests {
    struct Ingested {
        var results: [IngestResult]
        /// Every table's columns, and its rows (as text, numbers written alike), sorted.
        var tables: [String: (columns: [String], rows: [[String]])]
    }

    static func ingest(_ example: String, on backend: TestStore) throws -> Ingested {
        let lines = try String(contentsOfFile: Repository.examples + "/" + example, encoding: .utf8)
        return try ingest(
            events: try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) }, on: backend)
    }

    static func ingest(events: [JSON], on backend: TestStore) throws -> Ingested {
        let evaluator = try Bundled.evaluator()
        let now = Timestamp.parse("2026-11-29T12:00:00Z")!
        let ingestor = Features.all.makeIngestor(
            store: backend.store, evaluator: evaluator, policy: IngestPolicy(clock: { now }), cores: 1)
        let results = ingestor.ingest(events) + ingestor.ingest(events)
        let dump = try StoreDump(backend.store, backend: backend.name)
        return Ingested(results: results, tables: dump.tables.mapValues { ($0.columns, $0.rows) })
    }

    @Test(arguments: ["events.jsonl", "habits.jsonl", "challenges.jsonl", "onboarding.jsonl", "experiment.jsonl"])
    func examplesIngestAlikeOnSQLiteAndPostgreSQL(example: String) throws {
        let sqlite = try Self.ingest(example, on: TestStore("sqlite", schema: Features.all.schema))
        let postgres = try Self.ingest(example, on: TestStore("postgres", schema: Features.all.schema))
        let half = sqlite.results.count / 2
        #expect(sqlite.results[..<half].contains { $0.status == .accepted })
        #expect(sqlite.results[half...].allSatisfy { $0.status == .duplicate })
        #expect(postgres.results == sqlite.results)
        #expect(postgres.tables.keys.sorted() == sqlite.tables.keys.sorted())
        for (table, expected) in sqlite.tables {
            let found = postgres.tables[table]
            #expect(found?.columns == expected.columns, "\(table)")
            #expect(found?.rows == expected.rows, "\(table)")
        }
        #expect(sqlite.tables["events"]?.rows.isEmpty == false)
    }

    /// HB-18, HB-20: deleting a tracker and a category erases their names from the stored
    /// events and their unsent analytics alike on both backends.
    @Test func deletedTrackersAndCategoriesAreErasedAlike() throws {
        let lines = [
            ##"{"event_id":"c1","user_id":"u1","type":"category_created","occurred_at":"2026-11-23T08:00:00Z","payload":{"category_id":"dog","name":"Dog things"}}"##,
            ##"{"event_id":"t1","user_id":"u1","type":"tracker_created","occurred_at":"2026-11-23T08:01:00Z","payload":{"tracker_id":"walk","name":"Walk Rex","schedule":["mon"],"category":"dog","emoji":"🐕","color":"#FF8800"}}"##,
            ##"{"event_id":"t2","user_id":"u1","type":"tracker_created","occurred_at":"2026-11-23T08:02:00Z","payload":{"tracker_id":"read","name":"Read","schedule":["mon"],"category":"dog","emoji":"📖","color":"#112233"}}"##,
            ##"{"event_id":"c2","user_id":"u1","type":"category_created","occurred_at":"2026-11-23T08:02:30Z","payload":{"category_id":"sport","name":"Sport"}}"##,
            ##"{"event_id":"t3","user_id":"u1","type":"tracker_created","occurred_at":"2026-11-23T08:03:00Z","payload":{"tracker_id":"gym","name":"Gym","schedule":["mon"],"category":"sport","emoji":"🏋","color":"#445566"}}"##,
            ##"{"event_id":"k1","user_id":"u1","type":"habit_checked","occurred_at":"2026-11-23T20:00:00Z","payload":{"tracker_id":"walk"}}"##,
            ##"{"event_id":"k2","user_id":"u1","type":"habit_checked","occurred_at":"2026-11-23T20:01:00Z","payload":{"tracker_id":"gym"}}"##,
            ##"{"event_id":"d1","user_id":"u1","type":"tracker_deleted","occurred_at":"2026-11-24T08:00:00Z","payload":{"tracker_id":"gym"}}"##,
            ##"{"event_id":"d2","user_id":"u1","type":"category_deleted","occurred_at":"2026-11-24T08:01:00Z","payload":{"category_id":"dog"}}"##,
        ]
        let events = try lines.map { try JSONParser().parse($0) }
        let sqlite = try Self.ingest(events: events, on: TestStore("sqlite", schema: Features.all.schema))
        let postgres = try Self.ingest(events: events, on: TestStore("postgres", schema: Features.all.schema))
        #expect(postgres.results == sqlite.results)
        #expect(sqlite.results.prefix(lines.count).allSatisfy { $0.status == .accepted })
        for (table, expected) in sqlite.tables {
            #expect(postgres.tables[table]?.rows == expected.rows, "\(table)")
        }
        let stored = (postgres.tables["events"]?.rows ?? []).flatMap { $0 }.joined(separator: " ")
        for text in ["Dog things", "Gym", "🏋", "#445566"] { #expect(!stored.contains(text), "\(text)") }
        #expect(postgres.tables["events"]?.rows.count == lines.count)
        #expect(postgres.tables["habit_trackers"]?.rows.count == 2, "the category's trackers stay")
    }

    /// Two instances (two connections, two threads) ingesting the same events at once: each
    /// event is kept once, whichever instance wins; the other sees a duplicate.
    @Test func twoInstancesIngestingTheSameEventsKeepEachOnce() throws {
        let backend = try TestStore("postgres", schema: Features.all.schema)
        let now = Timestamp.parse("2026-11-29T12:00:00Z")!
        let lines = try String(contentsOfFile: Repository.examples + "/events.jsonl", encoding: .utf8)
            .split(separator: "\n")
        // Twenty owners, each with the example's dogs and events.
        let events = try (0..<20).flatMap { copy in
            try lines.map { line in
                try JSONParser().parse(
                    line.replacingOccurrences(of: "q-123", with: "q-123-\(copy)")
                        .replacingOccurrences(of: "miso-001", with: "miso-001-\(copy)")
                        .replacingOccurrences(of: "owner-", with: "owner\(copy)-"))
            }
        }
        /// An engine instance: its own connection, rules and results, used by one thread.
        final class Instance: @unchecked Sendable {
            let ingestor: Ingestor
            var results: [IngestResult] = []
            init(_ ingestor: Ingestor) { self.ingestor = ingestor }
        }
        let instances = try (0..<2).map { _ in
            let evaluator = try Bundled.evaluator()
            return Instance(
                Features.all.makeIngestor(
                    store: try backend.connect(), evaluator: evaluator, policy: IngestPolicy(clock: { now }), cores: 1))
        }
        let done = DispatchGroup()
        for instance in instances {
            done.enter()
            Thread.detachNewThread {
                // One event a batch, so that the two interleave.
                instance.results = events.flatMap { instance.ingestor.ingest([$0]) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the two instances did not finish within a minute")
        let accepted = (0..<events.count).map { index in
            instances.filter { $0.results.indices.contains(index) && $0.results[index].status == .accepted }.count
        }
        #expect(accepted.allSatisfy { $0 <= 1 })
        #expect(try backend.store.eventCount() == accepted.reduce(0, +))
        #expect(accepted.reduce(0, +) > events.count / 2)
        let refused = instances.flatMap(\.results).filter { $0.status == .rejected }
        #expect(refused.allSatisfy { $0.code != "storage_error" }, "\(refused.map { $0.message ?? "" })")
    }
}
