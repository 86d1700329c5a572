import Core
import Engine
import Features
import Foundation
import Habits
import RuleEngine
import Store
import TestSupport
import Testing

/// The statistics are kept per user until their habit data or the rules change, on every
/// backend, and never served stale by another connection (another instance) to the store.
@Suite struct StatisticsCacheTests {
    /// u1's events through the one ingest path, each received a minute after it happened.
    final class Events {
        let ingestor: Ingestor
        private let clock = TestClock()
        private var counter = 0
        init(_ store: any Store, _ evaluator: RuleEvaluator) {
            ingestor = Features.all.makeIngestor(
                store: store, evaluator: evaluator, policy: IngestPolicy(clock: clock.reading), cores: 1)
        }
        /// Ingests one event of u1 at `at`; whether it was accepted.
        @discardableResult
        func send(_ type: String, _ payload: JSONObject, at: String = "2026-11-10T08:00:00Z") -> Bool {
            counter += 1
            clock.now = (Timestamp.parse(at) ?? 0) + 60
            let event: JSON = .object([
                "event_id": .string("c\(counter)"), "user_id": "u1", "type": .string(type), "occurred_at": .string(at),
                "payload": .object(payload),
            ])
            return ingestor.ingest([event])[0].status == .accepted
        }
    }

    static func evaluator() throws -> RuleEvaluator {
        try #require(Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
    }

    static let walk: JSONObject = [
        "tracker_id": "walk", "name": "Walk", "schedule": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
        "category": "general", "emoji": "⭐", "color": "#3366FF",
    ]

    /// Every kind of change to a user's habit data makes their version grow; others' stay.
    @Test(arguments: TestStore.names)
    func everyHabitChangeMakesTheVersionGrow(backend name: String) throws {
        let test = try TestStore(name, schema: Features.all.schema)
        let events = Events(test.store, try Self.evaluator())
        #expect(try test.store.habitDataVersion(user: "u1") == 0)
        let changes: [(String, JSONObject)] = [
            ("category_created", ["category_id": "general", "name": "General"]),
            ("category_created", ["category_id": "home", "name": "Home"]),
            ("tracker_created", Self.walk),
            ("tracker_updated", ["tracker_id": "walk", "name": "Long walk", "category": "home"]),
            ("tracker_updated", ["tracker_id": "walk", "schedule": ["mon"]]),
            ("habit_checked", ["tracker_id": "walk", "date": "2026-11-10"]),
            ("habit_unchecked", ["tracker_id": "walk", "date": "2026-11-10"]),
            ("category_renamed", ["category_id": "home", "name": "House"]),
            ("category_deleted", ["category_id": "home"]),
            ("tracker_deleted", ["tracker_id": "walk"]),
        ]
        var version = try test.store.habitDataVersion(user: "u1")
        for (type, payload) in changes {
            #expect(events.send(type, payload), "\(type)")
            let next = try test.store.habitDataVersion(user: "u1")
            #expect(next > version, "\(type)")
            version = next
        }
        #expect(try test.store.habitDataVersion(user: "u2") == 0)
    }

    /// A second connection keeps its answer while nothing changed (rows edited behind the
    /// engine's back do not show), and recomputes as soon as the first one stores a check-in.
    @Test(arguments: TestStore.names)
    func anotherInstanceNeverServesStatisticsOfChangedData(backend name: String) throws {
        let test = try TestStore(name, schema: Features.all.schema)
        let evaluator = try Self.evaluator()
        let events = Events(test.store, evaluator)
        let other = try test.connect()
        events.send("category_created", ["category_id": "general", "name": "General"])
        events.send("tracker_created", Self.walk, at: "2026-11-01T08:00:00Z")
        let before = try HabitStatistics.json(user: "u1", store: other, evaluator: evaluator)
        #expect(before["has_data"] == false)
        events.send("habit_checked", ["tracker_id": "walk", "date": "2026-11-02"])
        events.send("habit_checked", ["tracker_id": "walk", "date": "2026-11-03"])
        let first = try HabitStatistics.json(user: "u1", store: other, evaluator: evaluator)
        #expect(first["trackers_completed"] == 2 && first["best_period"] == 2)
        // Kept: rows changed without a habit change are not read again (2026-11-02 unchecked
        // behind the engine's back, in its row and in the bits the statistics read: day 305 of
        // its year, word 5, bit 0).
        _ = try test.store.run(
            "UPDATE habit_checkins SET unchecked_at = 1 WHERE user_id = ? AND date = ?",
            [.text("u1"), .text("2026-11-02")])
        _ = try test.store.run(
            "UPDATE habit_checkin_years SET w5 = w5 - 1 WHERE user_id = ? AND year = 2026", [.text("u1")])
        #expect(try HabitStatistics.json(user: "u1", store: other, evaluator: evaluator) == first)
        // A check-in through the other connection: a new version, so the answer is computed again.
        events.send("habit_checked", ["tracker_id": "walk", "date": "2026-11-04"])
        let after = try HabitStatistics.json(user: "u1", store: other, evaluator: evaluator)
        #expect(after["trackers_completed"] == 2 && after["best_period"] == 2 && after["perfect_days"] == 2)
        events.send("habit_unchecked", ["tracker_id": "walk", "date": "2026-11-04"])
        #expect(try HabitStatistics.json(user: "u1", store: other, evaluator: evaluator)["trackers_completed"] == 1)
    }

    /// A product manager's edit of a statistic (a new revision) shows at once; a quarantined
    /// statistic is never answered from what was kept.
    @Test func aChangedRuleOrAQuarantineIsNeverAnsweredFromTheKeptStatistics() throws {
        let test = try TestStore("sqlite", schema: Features.all.schema)
        let evaluator = try Self.evaluator()
        let events = Events(test.store, evaluator)
        events.send("category_created", ["category_id": "general", "name": "General"])
        events.send("tracker_created", Self.walk, at: "2026-11-01T08:00:00Z")
        events.send("habit_checked", ["tracker_id": "walk", "date": "2026-11-02"])
        #expect(try HabitStatistics.json(user: "u1", store: test.store, evaluator: evaluator)["average"] == 1)

        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("stats-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Repository.rules, toPath: rules)
        defer { try? FileManager.default.removeItem(atPath: rules) }
        let file = rules + "/habits/statistics.yaml"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "then 0 else $count / $days end", with: "then 0 else $count / $days * 10 end")
            .replacingOccurrences(of: "expect: 2.5", with: "expect: 25").write(
                toFile: file, atomically: true, encoding: .utf8)
        let edited = Features.all.loader(rulesDirectory: rules, pluginsDirectory: Repository.plugins).load()
        let editedSet = try #require(edited.ruleSet, "\(edited.diagnostics)")
        #expect(editedSet.revision != evaluator.ruleSet.revision)
        let stats = try HabitStatistics.json(
            user: "u1", store: test.store, evaluator: RuleEvaluator(ruleSet: editedSet))
        #expect(stats["average"] == 10)

        evaluator.quarantined = ["habits.average"]
        #expect(!HabitStatistics.isCacheable(by: evaluator))
        let quarantined = try HabitStatistics.json(user: "u1", store: test.store, evaluator: evaluator)
        #expect(quarantined["average"] == .null && quarantined["degraded"] != nil)
        evaluator.quarantined = []
        #expect(try HabitStatistics.json(user: "u1", store: test.store, evaluator: evaluator)["average"] == 1)
    }
}
