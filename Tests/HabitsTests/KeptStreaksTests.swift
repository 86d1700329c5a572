import Core
import Engine
import Features
import Foundation
import RuleEngine
import SQLite
import SQLiteStore
import TestSupport
import Testing

@testable import Habits
@testable import Store

/// The streaks a tracker keeps let a check-in made in time order read none of its earlier
/// check-ins; what it reports is what reading them back reports, whatever the order.
struct KeptStreaksTests {
    /// Random histories (seeded): checks, unchecks and schedule changes of recent days, a tenth
    /// of them arriving after later ones. Each is sent to two stores; before every event the
    /// second forgets its trackers' kept streaks, so that it reads every streak back. The
    /// facts of every check-in (with the streaks late ones revise) are the same in both, and
    /// whatever is kept is what reading back gives.
    @Test(arguments: 0..<16)
    func keptStreaksAnswerWhatReadingBackAnswers(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed))
        let kept = try HabitsHarness()
        let readBack = try HabitsHarness()
        let start = try #require(CivilDate("2026-09-01"))
        /// A time of day `day` days after the start, `second` seconds after 08:00 UTC.
        func time(_ day: Int, _ second: Int) -> String {
            Timestamp.format(Double(start.adding(days: day).day) * 86_400 + 28_800 + Double(second))
        }
        let irregular = seed % 4 == 0
        func schedule() -> [JSON] {
            let days = CivilDate.weekdays.filter { _ in Int.random(in: 0..<10, using: &random) < 7 }
            return (days.isEmpty ? ["mon"] : days).map(JSON.string)
        }
        var created: JSONObject = ["tracker_id": "t", "name": "T", "category": "c", "emoji": "⭐", "color": "#3366FF"]
        created[irregular ? "kind" : "schedule"] = irregular ? "irregular" : .array(schedule())
        var events: [(type: String, payload: JSONObject, at: String)] = [
            ("category_created", ["category_id": "c", "name": "C"], time(0, 0)),
            ("tracker_created", created, time(0, 0)),
        ]
        var today = 0
        for second in 1...160 {
            if Int.random(in: 0..<3, using: &random) == 0 { today += 1 }
            let sent = Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 0...today, using: &random) : today
            let date = start.adding(days: max(0, sent - Int.random(in: 0...3, using: &random)))
            let kind = Int.random(in: 0..<20, using: &random)
            if kind == 0 && !irregular {
                events.append(
                    ("tracker_updated", ["tracker_id": "t", "schedule": .array(schedule())], time(sent, second)))
            } else {
                let type = kind < 15 ? "habit_checked" : "habit_unchecked"
                events.append((type, ["tracker_id": "t", "date": .string(date.description)], time(sent, second)))
            }
        }
        var fastChecks = 0
        for (index, event) in events.enumerated() {
            try readBack.store.connection.execute(
                "UPDATE habit_trackers SET streak_date = NULL, streak_days = NULL, prior_streak_date = NULL, prior_streak_days = NULL"
            )
            let before = try kept.store.habitTracker(user: "u1", id: "t")
            let a = kept.send("u1", event.type, event.payload, at: event.at)
            let b = readBack.send("u1", event.type, event.payload, at: event.at)
            #expect((a.status, a.code) == (b.status, b.code), "seed \(seed), event \(index): \(a) vs \(b)")
            if index < 2 { try #require(a.status == .accepted, "\(a)") }
            if a.status == .accepted, event.type == "habit_checked", let before, before.keptStreaks.latest != nil,
                event.at >= Timestamp.format(before.checkinsChangedAt ?? 0)
            {
                fastChecks += 1
            }
            try expectKeptIsReadBack(kept, seed: seed, event: index)
        }
        #expect(try facts(kept) == facts(readBack), "seed \(seed)")
        #expect(fastChecks >= 15, "seed \(seed): the kept streaks answered only \(fastChecks) check-ins")
    }

    /// Every check-in's `habit_checked` facts, by event id.
    private func facts(_ harness: HabitsHarness) throws -> [String: String] {
        var facts: [String: String] = [:]
        try harness.store.query(
            """
            SELECT e.event_id, a.properties FROM analytics_outbox a JOIN events e ON e.id = a.event
            WHERE a.name = 'habit_checked'
            """, []
        ) { row in facts[row.text(0) ?? ""] = row.text(1) }
        return facts
    }

    /// What the tracker keeps is its latest counted day done, with the streak read back on it,
    /// and the streak read back on the counted day done before it.
    private func expectKeptIsReadBack(_ harness: HabitsHarness, seed: Int, event: Int) throws {
        let store = harness.store
        guard let tracker = try store.habitTracker(user: "u1", id: "t") else { return }
        let counted = StreakDays(tracker)
        let done = try store.habitCheckinDates(
            user: "u1", tracker: "t", before: "9999-12-31", asOf: .infinity, limit: 10_000
        ).compactMap { CivilDate($0) }.filter { counted.counts($0.day) }
        func streak(_ day: CivilDate) throws -> Int {
            try HabitsConsumer.streak(on: day, of: tracker, user: "u1", asOf: .infinity, store: store)
        }
        if let latest = tracker.keptStreaks.latest {
            #expect(
                latest.date == done.first, "seed \(seed), event \(event): latest \(latest) but done \(done.prefix(3))")
            #expect(latest.days == (try streak(latest.date)), "seed \(seed), event \(event)")
        }
        if let prior = tracker.keptStreaks.prior {
            #expect(done.count >= 2 && prior.date == done[1], "seed \(seed), event \(event): prior \(prior)")
            #expect(prior.days == (try streak(prior.date)), "seed \(seed), event \(event)")
        }
    }

    /// A Monday, Wednesday and Friday habit: what each change keeps, from what was kept.
    static let changes: [(name: String, kept: KeptStreaks, change: String, day: String, expected: KeptStreaks?)] = {
        func streak(_ date: String, _ days: Int) -> DayStreak { DayStreak(date: CivilDate(date)!, days: days) }
        return [
            (
                "the next scheduled day lengthens", KeptStreaks(latest: streak("2026-11-25", 4)), "check", "2026-11-27",
                KeptStreaks(latest: streak("2026-11-27", 5), prior: streak("2026-11-25", 4))
            ),
            (
                "a scheduled day missed in between starts anew", KeptStreaks(latest: streak("2026-11-23", 4)), "check",
                "2026-11-27", KeptStreaks(latest: streak("2026-11-27", 1), prior: streak("2026-11-23", 4))
            ),
            (
                "at the limit it stays there", KeptStreaks(latest: streak("2026-11-25", 366)), "check", "2026-11-27",
                KeptStreaks(latest: streak("2026-11-27", 366), prior: streak("2026-11-25", 366))
            ),
            (
                "a day off changes nothing", KeptStreaks(latest: streak("2026-11-25", 4)), "check", "2026-11-26",
                KeptStreaks(latest: streak("2026-11-25", 4))
            ),
            (
                "a day before the latest is read back", KeptStreaks(latest: streak("2026-11-25", 4)), "check",
                "2026-11-23", nil
            ),
            ("nothing kept is read back", KeptStreaks(), "check", "2026-11-27", nil),
            (
                "unchecking the latest gives back the prior",
                KeptStreaks(latest: streak("2026-11-27", 1), prior: streak("2026-11-23", 4)), "uncheck", "2026-11-27",
                KeptStreaks(latest: streak("2026-11-23", 4))
            ),
            (
                "without a prior, the day before ends a streak one shorter",
                KeptStreaks(latest: streak("2026-11-27", 5)),
                "uncheck", "2026-11-27", KeptStreaks(latest: streak("2026-11-25", 4))
            ),
            (
                "a streak of one leaves the latest unknown", KeptStreaks(latest: streak("2026-11-27", 1)), "uncheck",
                "2026-11-27", KeptStreaks()
            ),
            (
                "a streak cut at the limit leaves the day before unknown",
                KeptStreaks(latest: streak("2026-11-27", 366)),
                "uncheck", "2026-11-27", KeptStreaks()
            ),
            (
                "unchecking an earlier day forgets",
                KeptStreaks(latest: streak("2026-11-27", 5), prior: streak("2026-11-25", 4)), "uncheck", "2026-11-25",
                KeptStreaks()
            ),
            (
                "unchecking a day off changes nothing", KeptStreaks(latest: streak("2026-11-27", 5)), "uncheck",
                "2026-11-26", KeptStreaks(latest: streak("2026-11-27", 5))
            ),
        ]
    }()

    @Test(arguments: changes)
    func eachChangeKeepsWhatFollowsFromTheKept(
        name: String, kept: KeptStreaks, change: String, day: String, expected: KeptStreaks?
    ) throws {
        let tracker = HabitTracker(
            id: "t", name: "T", kind: .habit, createdOn: "2025-01-01", createdAt: 0,
            schedules: [HabitSchedule(fromDate: "2025-01-01", days: ["mon", "wed", "fri"])])
        let counted = StreakDays(tracker)
        let date = try #require(CivilDate(day))
        if change == "check" {
            let known = kept.checking(date, counted: counted)
            #expect(known?.kept == expected, "\(name)")
            #expect(known?.streak == expected.map { $0.latest?.date == date ? $0.latest?.days : 0 } ?? nil, "\(name)")
        } else {
            #expect(kept.unchecking(date, counted: counted) == expected, "\(name)")
        }
    }

    /// A day read back keeps its streak and the streak of the scheduled day before it, both
    /// cut at the limit: read one day past it, the day before is known at the limit too.
    @Test(arguments: [(1, nil), (2, 1), (5, 4), (366, 365), (367, 366)] as [(Int, Int?)])
    func aDayReadBackKeepsTheDayBeforeToo(reach: Int, prior: Int?) throws {
        let tracker = HabitTracker(
            id: "t", name: "T", kind: .habit, createdOn: "2025-01-01", createdAt: 0,
            schedules: [HabitSchedule(fromDate: "2025-01-01", days: ["mon", "wed", "fri"])])
        let kept = KeptStreaks.read(try #require(CivilDate("2026-11-27")), reach: reach, counted: StreakDays(tracker))
        #expect(kept.latest == DayStreak(date: CivilDate("2026-11-27")!, days: min(reach, 366)))
        #expect(kept.prior == prior.map { DayStreak(date: CivilDate("2026-11-25")!, days: $0) })
    }

    /// A store made before trackers kept their streaks: migrating gives each tracker the
    /// latest time its check-ins changed (a check or an uncheck), so that a late check-in is
    /// still told apart; its next check-in reads the streak back and keeps it.
    @Test func aStoreFromBeforeKeepsItsStreaksFromItsNextCheckIn() throws {
        let file = TemporaryDatabaseFile()
        do {
            let old = try SQLiteStore(
                path: file.path, schema: Features.all.schema.filter { !["habits.6", "habits.7"].contains($0.name) })
            try old.execute(
                """
                INSERT INTO users (user_id, first_seen_at) VALUES ('u1', 0);
                INSERT INTO habit_trackers (user_id, tracker_id, name, kind, created_on, created_at)
                VALUES ('u1', 'walk', 'Walk', 'irregular', '2026-11-20', 0), ('u1', 'read', 'Read', 'irregular', '2026-11-20', 0);
                INSERT INTO habit_checkins (user_id, tracker_id, date, checked_at, unchecked_at) VALUES
                    ('u1', 'walk', '2026-11-27', 1795809600, NULL), ('u1', 'walk', '2026-11-28', 1795896000, 1795982400),
                    ('u1', 'walk', '2026-11-29', 1795942800, NULL);
                """)
        }
        let store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        let walk = try #require(try store.habitTracker(user: "u1", id: "walk"))
        #expect(walk.checkinsChangedAt == 1_795_982_400, "the uncheck of 2026-11-28, on 2026-11-29 at 20:00")
        #expect(walk.keptStreaks == KeptStreaks())
        #expect(try store.habitTracker(user: "u1", id: "read")?.checkinsChangedAt == nil)

        let evaluator = try #require(
            Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(clock: { Timestamp.parse("2026-11-30T08:01:00Z") ?? 0 }), cores: 1)
        let result = ingestor.ingest([
            [
                "event_id": "e1", "user_id": "u1", "type": "habit_checked", "occurred_at": "2026-11-30T08:00:00Z",
                "payload": ["tracker_id": "walk"],
            ]
        ])[0]
        #expect(result.status == .accepted, "\(result)")
        let kept = try #require(try store.habitTracker(user: "u1", id: "walk")).keptStreaks
        #expect(
            kept
                == KeptStreaks(
                    latest: DayStreak(date: CivilDate("2026-11-30")!, days: 2),
                    prior: DayStreak(date: CivilDate("2026-11-29")!, days: 1)))
    }
}
