import Core
import Engine
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// The bundled engine, every feature at once: the examples' events (registrations, block
/// flows, weights, habit check-ins, challenge joins and walks, onboarding taps and timers,
/// experiment exposures) ingested in any order of arrival, batches split differently, with
/// resends, end in the same store as in time order. Seeded and reproducible.
@Suite struct EngineArrivalOrderTests {
    @Test(arguments: 0..<6)
    func everyFeatureFollowsFromTheSetOfEvents(seed: UInt64) throws {
        let evaluator = try Bundled.evaluator()
        var generator = SplitMix64(seed: 3_000 + seed)
        let events = try Self.exampleEvents()
        let differences = try Self.differencesInAnyOrder(
            of: events, evaluator: evaluator, receivedAt: Self.receivedAt, permutations: 10, using: &generator)
        #expect(differences.isEmpty, "seed \(seed), \(differences.joined(separator: "\n"))")
    }

    /// How the store after `events` (in time order) differs from the stores after up to
    /// `permutations` orders of arrival of them (with a sixth of them sent twice, in batches of
    /// 1 to 16), received at `receivedAt`: the first permutation that differs, or nothing.
    static func differencesInAnyOrder(
        of events: [JSON], evaluator: RuleEvaluator, receivedAt: Double, permutations: Int,
        using generator: inout SplitMix64
    ) throws -> [String] {
        let inOrder = try ingest([events], evaluator: evaluator, receivedAt: receivedAt)
        for permutation in 0..<permutations {
            var shuffled = events + events.filter { _ in generator.next() % 6 == 0 }
            shuffled.shuffle(using: &generator)
            var batches: [[JSON]] = []
            while !shuffled.isEmpty {
                let size = min(shuffled.count, 1 + Int(generator.next() % 16))
                batches.append(Array(shuffled.prefix(size)))
                shuffled.removeFirst(size)
            }
            let run = try ingest(batches, evaluator: evaluator, receivedAt: receivedAt)
            let differences = inOrder.differences(from: run)
            if !differences.isEmpty { return ["permutation \(permutation):"] + differences }
        }
        return []
    }

    /// A weight saved after a block started completes the block's action at its own time,
    /// also when it arrives before the start (and when the start arrives after an
    /// auto-complete that did the action later).
    @Test func anAppEventBeforeItsBlockStartArrivesCountsAtItsTime() throws {
        let evaluator = try Bundled.evaluator()
        let all = try Self.exampleEvents()
        let pick = { (id: String) in all.first { $0["event_id"]?.stringValue == id }! }
        let (registration, weight, start, check, accept) = (
            pick("reg-q"), pick("e-002"), pick("j-001"), pick("j-004"), pick("j-005")
        )
        let inOrder = try Self.ingest([[registration, start, weight, check, accept]], evaluator: evaluator)
        for arrival in [
            [[registration], [weight], [start], [check, accept]], [[registration, check, accept], [weight], [start]],
            [[registration, weight, accept], [check], [start]],
        ] {
            let run = try Self.ingest(arrival, evaluator: evaluator)
            #expect(inOrder.differences(from: run).isEmpty, "\(inOrder.differences(from: run))")
        }
        let action = inOrder.tables["block_progress"]?.rows.first { $0.contains("action") }
        #expect(action?.contains(String(format: "%.12g", Timestamp.parse("2026-11-23T09:12:00+01:00")!)) == true)
    }

    /// A check-in of a day that arrives after the later days' check-ins lengthens their
    /// streaks as in time order: the habit-streak challenge (its completion rule reads the
    /// streak) completes at the seventh day's check-in, whatever arrived first.
    @Test func aLateCheckInLengthensTheStreaksAfterIt() throws {
        let evaluator = try Bundled.evaluator()
        func event(_ id: String, _ type: String, _ at: String, _ payload: JSON) throws -> JSON {
            try JSONParser().parse(
                #"{"event_id": "\#(id)", "user_id": "streaker", "type": "\#(type)", "occurred_at": "\#(at)", "payload": \#(payload.compactText)}"#
            )
        }
        let setup = [
            try event("s-cat", "category_created", "2026-11-22T12:30:00Z", ["category_id": "h", "name": "Health"]),
            try event(
                "s-trk", "tracker_created", "2026-11-22T12:31:00Z",
                [
                    "tracker_id": "run", "name": "Run", "kind": "habit",
                    "schedule": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], "category": "h", "emoji": "🏃",
                    "color": "#3355AA",
                ]),
            try event("s-join", "challenge_joined", "2026-11-22T12:32:00Z", ["challenge_id": "habit-streak"]),
        ]
        let checkins = try (1...7).map {
            try event("s-c\($0)", "habit_checked", "2026-11-\(21 + $0)T19:00:00Z", ["tracker_id": "run"])
        }
        let inOrder = try Self.ingest([setup + checkins], evaluator: evaluator)
        let seventh = String(format: "%.12g", Timestamp.parse("2026-11-28T19:00:00Z")!)
        let progress = try #require(inOrder.tables["challenge_progress"])
        #expect(progress.rows.contains { $0.contains("habit-streak") && $0.contains(seventh) })
        for arrival in [
            [setup + checkins.filter { $0["event_id"] != "s-c3" }, [checkins[2]]],
            [setup] + checkins.reversed().map { [$0] },
            [setup, Array(checkins[4...]), Array(checkins[..<4])],
        ] {
            let run = try Self.ingest(arrival, evaluator: evaluator)
            #expect(inOrder.differences(from: run).isEmpty, "\(inOrder.differences(from: run))")
        }
    }

    /// Every event is received at this time (all of the examples are within the late window).
    static let receivedAt = Timestamp.parse("2026-11-29T12:00:00Z")!

    /// The examples' events in time order (ties in file order).
    static func exampleEvents() throws -> [JSON] {
        var events: [(Double, Int, JSON)] = []
        for example in ["events", "habits", "challenges", "onboarding", "experiment"] {
            let text = try String(contentsOfFile: Repository.examples + "/\(example).jsonl", encoding: .utf8)
            for line in text.split(separator: "\n") {
                let event = try JSONParser().parse(String(line))
                let at = event["occurred_at"]?.stringValue.flatMap(Timestamp.parse) ?? 0
                events.append((at, events.count, event))
            }
        }
        return events.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }

    static func ingest(
        _ batches: [[JSON]], evaluator: RuleEvaluator, receivedAt: Double = receivedAt
    ) throws -> StoreDump {
        let test = try TestStore("sqlite", schema: Features.all.schema)
        let ingestor = Features.all.makeIngestor(
            store: test.store, evaluator: evaluator, policy: IngestPolicy(clock: { receivedAt }), cores: 1)
        // As a phone does: what was refused because what it needs had not arrived yet (the dog,
        // the tracker, the step) is sent again, until nothing more is accepted.
        var pending: [JSON] = []
        for batch in batches {
            pending += zip(batch, ingestor.ingest(batch)).filter { $0.1.status == .rejected }.map(\.0)
        }
        while !pending.isEmpty {
            let results = ingestor.ingest(pending)
            let still = zip(pending, results).filter { $0.1.status == .rejected }.map(\.0)
            if still.count == pending.count { break }
            pending = still
        }
        var dump = try StoreDump(
            test.store, backend: "sqlite",
            excluding: StoreDump.habitArrivalColumns.union([
                "id", "event", "received_at", "outcome", "provenance", "rule_revision", "first_seen_at",
            ]))
        for (table, column, values) in stillInArrivalOrder {
            guard var rows = dump.tables[table] else { continue }
            if let column {
                guard let index = rows.columns.firstIndex(of: column) else { continue }
                rows.rows = rows.rows.filter { row in !values.contains { row[index].hasPrefix($0) } }
                dump.tables[table] = rows
            } else {
                dump.tables[table] = nil
            }
        }
        return dump
    }

    /// What still follows the order of arrival, left out of the comparison: the head-to-head's
    /// "overtook you" and opponent's progress notifications (by nature: where the sides stood
    /// when the event came). (table, column, value prefixes; no column: the whole table.)
    static let stillInArrivalOrder: [(String, String?, [String])] = [
        ("reminders", "kind", ["challenge_overtaken", "challenge_opponent_progress"]),
        ("analytics_outbox", "name", ["challenge_overtaken"]),
    ]
}
