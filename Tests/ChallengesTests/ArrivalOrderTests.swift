import Core
import Engine
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// Same events, any order of arrival, same store: joins before or after the activity they
/// count, duplicates, events at the edges of the challenge window, the late window and the
/// clock-skew allowance, batches split differently. Seeded and reproducible: a failure names
/// its seed and the rows that differ.
@Suite struct ArrivalOrderTests {
    /// The first permutation of each event set is ingested in time order; each later one is
    /// compared to it.
    @Test(arguments: 0..<12)
    func challengeOutcomesFollowFromTheSetOfEvents(seed: UInt64) throws {
        var generator = SplitMix64(seed: 1_000 + seed)
        let events = ArrivalOrderWorld.eventSet(using: &generator)
        let world = try ArrivalOrderWorld()
        let inOrder = try world.ingest([events.sorted(by: ArrivalOrderWorld.timeOrder)])
        #expect(try world.count("challenge_progress", inOrder) > 0)
        for permutation in 0..<25 {
            let batches = ArrivalOrderWorld.arrival(of: events, using: &generator)
            let dump = try world.ingest(batches)
            let differences = inOrder.dump.differences(from: dump.dump)
            #expect(
                differences.isEmpty, "seed \(seed), permutation \(permutation): \(differences.joined(separator: "\n"))")
            if !differences.isEmpty { return }
        }
    }

    /// The same on every backend: a few permutations of two event sets, each compared with the
    /// in-order run on SQLite.
    @Test(arguments: TestStore.names)
    func theSameOnEveryBackend(backend: String) throws {
        let world = try ArrivalOrderWorld()
        for seed in 0..<2 as Range<UInt64> {
            var generator = SplitMix64(seed: 2_000 + seed)
            let events = ArrivalOrderWorld.eventSet(using: &generator)
            let inOrder = try world.ingest([events.sorted(by: ArrivalOrderWorld.timeOrder)])
            for _ in 0..<4 {
                let run = try world.ingest(ArrivalOrderWorld.arrival(of: events, using: &generator), backend: backend)
                let differences = inOrder.dump.differences(from: run.dump)
                #expect(differences.isEmpty, "\(backend), seed \(seed): \(differences.joined(separator: "\n"))")
            }
        }
    }

    /// Walks before the join count when the join arrives (the issue's lost kilometres): the
    /// same value, completion and rewards as when the join came first.
    @Test func aJoinArrivingAfterTheWalksCountsThem() throws {
        let world = try ArrivalOrderWorld()
        let join = ArrivalOrderWorld.event(
            "u1", "j1", "challenge_joined", "2026-08-27T09:00:00+02:00", ["challenge_id": "solo"])
        let walks = (1...4).map {
            ArrivalOrderWorld.event(
                "u1", "w\($0)", "walk_completed", String(format: "2026-08-%02dT18:00:00+02:00", 26 + $0), ["km": 3])
        }
        let first = try world.ingest([[join] + walks])
        let last = try world.ingest([walks, [join]])
        #expect(first.dump.differences(from: last.dump).isEmpty)
        let value = try last.store.challengeParticipation(challenge: "solo", user: "u1")
        #expect(value?.value == 12)
        #expect(value?.completedAt == Timestamp.parse("2026-08-30T18:00:00+02:00"))
        #expect(try world.count("rewards", last) == 2)
    }

    /// An event's outcome lists the challenges it counts toward in the order the user joined
    /// them, on every backend: PostgreSQL returned the participations in the order of their
    /// rows' last change (an update moves a row), SQLite in the order they were first written.
    @Test(arguments: TestStore.names)
    func anOutcomeListsTheChallengesInJoinOrder(backend: String) throws {
        let world = try ArrivalOrderWorld()
        let events = [
            ArrivalOrderWorld.event(
                "u1", "j1", "challenge_joined", "2026-08-27T09:00:00+02:00", ["challenge_id": "solo"]),
            ArrivalOrderWorld.event(
                "u1", "j2", "challenge_joined", "2026-08-28T09:00:00+02:00", ["challenge_id": "from-join"]),
            // Counts toward solo only (from-join counts from its join on): solo's row changes.
            ArrivalOrderWorld.event("u1", "w1", "walk_completed", "2026-08-27T18:00:00+02:00", ["km": 1]),
            ArrivalOrderWorld.event("u1", "w2", "walk_completed", "2026-08-29T18:00:00+02:00", ["km": 1]),
        ]
        let run = try world.ingest(events.map { [$0] }, backend: backend)
        let outcome = try #require(try run.store.event(user: "u1", eventID: "w2")?.outcome.arrayValue)
        let counted = outcome.filter { $0["type"] == "challenge_progress" }.compactMap {
            $0["challenge_id"]?.stringValue
        }
        #expect(counted == ["solo", "from-join"])
    }

    /// `counts_from: joined` counts only what happened from the join on, in either order.
    @Test func countsFromJoinedIgnoresEarlierEvents() throws {
        let world = try ArrivalOrderWorld()
        let join = ArrivalOrderWorld.event(
            "u1", "j1", "challenge_joined", "2026-08-29T09:00:00+02:00", ["challenge_id": "from-join"])
        let walks = (1...4).map {
            ArrivalOrderWorld.event(
                "u1", "w\($0)", "walk_completed", String(format: "2026-08-%02dT18:00:00+02:00", 26 + $0), ["km": 2])
        }
        for batches in [[[join] + walks], [walks, [join]], [[walks[3], join], Array(walks.prefix(3))]] {
            let run = try world.ingest(batches)
            #expect(try run.store.challengeParticipation(challenge: "from-join", user: "u1")?.value == 4)
        }
    }

    /// A late walk that completed the challenge sooner in time order moves the completion
    /// (and its rewards) back; nothing is rewarded twice.
    @Test func aLateEventMovesTheCompletionBack() throws {
        let world = try ArrivalOrderWorld()
        let join = ArrivalOrderWorld.event(
            "u1", "j1", "challenge_joined", "2026-08-27T09:00:00+02:00", ["challenge_id": "solo"])
        let early = ArrivalOrderWorld.event("u1", "w1", "walk_completed", "2026-08-28T18:00:00+02:00", ["km": 6])
        let middle = ArrivalOrderWorld.event("u1", "w2", "walk_completed", "2026-08-29T18:00:00+02:00", ["km": 6])
        let late = ArrivalOrderWorld.event("u1", "w3", "walk_completed", "2026-08-30T18:00:00+02:00", ["km": 6])
        let run = try world.ingest([[join, early, late], [middle]])
        let participation = try run.store.challengeParticipation(challenge: "solo", user: "u1")
        #expect(participation?.completedAt == Timestamp.parse("2026-08-29T18:00:00+02:00"))
        #expect(try world.count("rewards", run) == 2)
        let granted = try run.store.rows("SELECT DISTINCT granted_at FROM rewards") { $0.real(0) }
        #expect(granted == [Timestamp.parse("2026-08-29T18:00:00+02:00")!])
    }
}

/// Challenge definitions over a short window, an event generator, and ingestion into a fresh
/// store with the clock fixed, so that acceptance depends on the events alone.
final class ArrivalOrderWorld {
    private let folder: TemporaryDirectory
    let evaluator: RuleEvaluator
    /// Every event is received at this time: the late window starts 7 days before.
    static let receivedAt = Timestamp.parse("2026-09-02T00:00:00Z")!

    /// Compiles the rules (an evaluator serves one thread: each test makes its own world).
    init() throws {
        let window = "starts_at: 2026-08-26T00:00:00+02:00\nends_at: 2026-08-31T23:59:59+02:00\ngrace: 5m"
        folder = try TemporaryDirectory([
            "solo.yaml": """
            challenge: solo
            title: Solo
            type: solo
            metric: {events: [walk_completed], expr: .payload.km | select(type == "number" and . > 0)}
            target_value: 10
            \(window)
            xp_reward: 50
            badge_id: solo-badge
            """,
            "from-join.yaml": """
            challenge: from-join
            title: From the join on
            type: solo
            counts_from: joined
            metric: {events: [walk_completed], expr: .payload.km | select(type == "number" and . > 0)}
            target_value: 6
            \(window)
            xp_reward: 10
            """,
            "custom.yaml": """
            challenge: custom
            title: Custom completion
            type: solo
            metric: {events: [walk_completed], expr: .payload.km | select(type == "number" and . > 0)}
            completion: .value >= .target and .event.payload.km >= 2
            target_value: 8
            \(window)
            badge_id: custom-badge
            """,
            "pack.yaml": """
            challenge: pack
            title: Pack
            type: community
            metric: {events: [walk_completed], expr: .payload.km | select(type == "number" and . > 0)}
            target_value: 40
            \(window)
            xp_reward: 20
            """,
            "duel.yaml": """
            challenge: duel
            title: Duel
            type: head_to_head
            metric: {events: [steps_logged], expr: .payload.steps | select(type == "number" and . > 0)}
            target_value: 30000
            \(window)
            xp_reward: 30
            """,
        ])
        let loaded = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: nil).load()
        evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
    }

    /// A store after ingesting `batches` in order, and its canonical dump.
    struct Run {
        let store: any StoreConnection
        let dump: StoreDump
        private let owner: TestStore
        init(_ owner: TestStore, dump: StoreDump) {
            self.owner = owner
            store = owner.store
            self.dump = dump
        }
    }

    func ingest(_ batches: [[JSON]], backend: String = "sqlite") throws -> Run {
        let test = try TestStore(backend, schema: Features.all.schema)
        let ingestor = Features.all.makeIngestor(
            store: test.store, evaluator: evaluator, policy: IngestPolicy(clock: { Self.receivedAt }), cores: 1)
        for batch in batches { _ = ingestor.ingest(batch) }
        return Run(test, dump: try Self.canonicalDump(test.store, backend: backend))
    }

    func count(_ table: String, _ run: Run) throws -> Int {
        try run.store.rows("SELECT count(*) FROM \(table)") { Int($0.integer(0)) }.first ?? 0
    }

    /// Every table but what records arrival: row ids and references to them, arrival times,
    /// each event's own outcome (what its answer showed), and the notifications that follow
    /// the order of arrival by nature (overtaking: who led when the event came; the opponent's
    /// progress: where each side stood when the event came).
    static func canonicalDump(_ store: any StoreConnection, backend: String) throws -> StoreDump {
        var dump = try StoreDump(
            store, backend: backend,
            excluding: StoreDump.habitArrivalColumns.union([
                "id", "event", "received_at", "outcome", "provenance", "rule_revision", "first_seen_at",
            ]))
        for (table, column) in [("reminders", "kind"), ("analytics_outbox", "name")] {
            guard var rows = dump.tables[table], let index = rows.columns.firstIndex(of: column) else { continue }
            rows.rows = rows.rows.filter {
                !$0[index].hasPrefix("challenge_overtaken") && !$0[index].hasPrefix("challenge_opponent_progress")
            }
            dump.tables[table] = rows
        }
        return dump
    }

    // MARK: Events

    static func event(_ user: String, _ id: String, _ type: String, _ at: String, _ payload: JSONObject) -> JSON {
        .object([
            "event_id": .string(id), "user_id": .string(user), "type": .string(type), "occurred_at": .string(at),
            "payload": .object(payload),
        ])
    }

    static func timeOrder(_ a: JSON, _ b: JSON) -> Bool {
        let key = { (event: JSON) in
            (Timestamp.parse(event["occurred_at"]?.stringValue ?? "") ?? 0, event["event_id"]?.stringValue ?? "")
        }
        return key(a) < key(b)
    }

    /// Six users joining the challenges at random times (some after all their activity),
    /// walks and steps through and around the window (some beyond the late window, one beyond
    /// the skew allowance, some at the grace's edge), an invalid walk, and resends.
    static func eventSet(using generator: inout SplitMix64) -> [JSON] {
        let windowEnd = Timestamp.parse("2026-08-31T23:59:59+02:00")! + 300
        let lateEdge = receivedAt - 7 * 86_400
        let start = Timestamp.parse("2026-08-25T12:00:00Z")!
        func time(_ seconds: Double) -> String { Timestamp.format(seconds) }
        func random(in range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(generator.next() % 1_000_000) / 1_000_000 * (range.upperBound - range.lowerBound)
        }
        var events: [JSON] = []
        var counter = 0
        func add(_ user: String, _ type: String, _ at: Double, _ payload: JSONObject) {
            counter += 1
            events.append(event(user, "e\(counter)", type, time(at.rounded()), payload))
        }
        for n in 0..<6 {
            let user = "u\(n)"
            for challenge in ["solo", "from-join", "custom", "pack"] where generator.next() % 5 != 0 {
                add(
                    user, "challenge_joined", random(in: start...windowEnd - 3_600),
                    ["challenge_id": .string(challenge)])
            }
            for _ in 0..<(4 + Int(generator.next() % 6)) {
                let km = Double(generator.next() % 40) / 10 + 0.5
                add(user, "walk_completed", random(in: start...windowEnd + 3_600), ["km": .number(km)])
            }
            if generator.next() % 2 == 0 { add(user, "walk_completed", windowEnd, ["km": 2]) }
            if generator.next() % 2 == 0 { add(user, "walk_completed", windowEnd + 1, ["km": 2]) }
            if generator.next() % 3 == 0 { add(user, "walk_completed", lateEdge + 1, ["km": 1]) }
            if generator.next() % 3 == 0 { add(user, "walk_completed", lateEdge - 1, ["km": 1]) }
            if generator.next() % 4 == 0 { add(user, "walk_completed", receivedAt + 301, ["km": 1]) }
            if generator.next() % 4 == 0 { add(user, "walk_completed", random(in: start...windowEnd), ["km": "far"]) }
        }
        // A duel of two users, each their own side.
        for user in ["u0", "u1"] {
            add(user, "challenge_joined", random(in: start...windowEnd - 3_600), ["challenge_id": "duel"])
            for _ in 0..<5 {
                add(
                    user, "steps_logged", random(in: start...windowEnd),
                    ["steps": .number(Double(2_000 + generator.next() % 8_000))])
            }
        }
        let resends = events.filter { _ in generator.next() % 8 == 0 }
        return events + resends
    }

    /// `events` shuffled and cut into batches of 1 to 12.
    static func arrival(of events: [JSON], using generator: inout SplitMix64) -> [[JSON]] {
        var shuffled = events
        shuffled.shuffle(using: &generator)
        var batches: [[JSON]] = []
        var index = 0
        while index < shuffled.count {
            let size = 1 + Int(generator.next() % 12)
            batches.append(Array(shuffled[index..<min(index + size, shuffled.count)]))
            index += size
        }
        return batches
    }
}
