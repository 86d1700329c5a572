import Core
import Features
import Foundation
import Habits
import RuleEngine
import Store
import TestSupport
import Testing

/// The bundled statistics rules on the engine's compact facts (runs and per-day counts) give
/// what a straightforward walk over every day gives, for random histories: schedules that
/// change, irregular events, check-ins on unscheduled days, arriving in any order, unchecked
/// and checked again, a tracker and a category deleted.
struct StatisticsEquivalenceTests {
    @Test(arguments: 0..<24 as Range<UInt64>)
    func factsAndRulesMatchAWalkOverEveryDay(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let history = RandomHistory(&random)
        let evaluator = try #require(
            Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        let facts = try HabitFacts.input(trackers: history.trackers, checkins: history.checkins)
        let stats = try HabitStatistics.json(facts: facts, hasData: !history.checkins.isEmpty, evaluator: evaluator)
        let want = Reference.statistics(history.trackers, history.checkins)
        for (key, value) in want { #expect(stats[key] == value, "seed \(seed): \(key) \(stats.compactText)") }
    }

    /// The same histories written through the store in a random order, with toggles and
    /// deletions, read back as the statistics screen reads them (twice: computed, then kept),
    /// on every backend; the check-in days read from the columns' bytes are the check-ins.
    @Test(arguments: TestStore.names, 0..<12 as Range<UInt64>)
    func theStoredHistoryGivesTheSameStatistics(backend: String, seed: UInt64) throws {
        var random = SplitMix64(seed: seed + 100)
        var history = RandomHistory(&random)
        let testStore = try TestStore(backend, schema: Features.all.schema)
        let store = testStore.store
        let evaluator = try #require(
            Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        try store.ensureUser("u1", firstSeenAt: 0)
        try store.applyHabitChange(.categoryCreated(HabitCategory(id: "c", name: "C")), user: "u1", at: 0, event: nil)
        for tracker in history.trackers {
            var created = tracker
            created.schedules = Array(tracker.schedules.prefix(1))
            try store.applyHabitChange(.trackerCreated(created), user: "u1", at: 0, event: nil)
            for schedule in tracker.schedules.dropFirst() {
                try store.applyHabitChange(
                    .scheduleChanged(trackerID: tracker.id, schedule: schedule), user: "u1", at: 0, event: nil)
            }
        }
        // Any arrival order; some days checked, unchecked and checked again; some only unchecked.
        for (n, checkin) in history.checkins.shuffled(using: &random).enumerated() {
            try store.applyHabitChange(.checked(checkin), user: "u1", at: Double(n), event: nil)
            if random.next() % 8 == 0 {
                try store.applyHabitChange(.unchecked(checkin), user: "u1", at: Double(n), event: nil)
                try store.applyHabitChange(.checked(checkin), user: "u1", at: Double(n), event: nil)
            }
        }
        for tracker in history.trackers where random.next() % 4 == 0 {
            let day = HabitCheckin(trackerID: tracker.id, date: "2026-05-31")
            try store.applyHabitChange(.checked(day), user: "u1", at: 1e6, event: nil)
            try store.applyHabitChange(.unchecked(day), user: "u1", at: 1e6, event: nil)
        }
        if history.trackers.count > 1 {
            let gone = history.trackers.removeLast().id
            try store.applyHabitChange(.trackerDeleted(trackerID: gone), user: "u1", at: 2e6, event: nil)
            history.checkins.removeAll { $0.trackerID == gone }
        }
        try store.applyHabitChange(.categoryDeleted(categoryID: "c"), user: "u1", at: 2e6, event: nil)
        var days: [String: [Int]] = [:]
        for checkin in try store.habitCheckins(user: "u1") {
            days[checkin.trackerID, default: []].append(try #require(CivilDate(checkin.date)).day)
        }
        #expect(try store.habitCheckinDays(user: "u1") == days)
        #expect(days.values.reduce(0) { $0 + $1.count } == history.checkins.count)
        let want = Reference.statistics(history.trackers, history.checkins)
        for _ in 0..<2 {
            let stats = try HabitStatistics.json(user: "u1", store: store, evaluator: evaluator)
            #expect(stats["has_data"] == .bool(!history.checkins.isEmpty))
            for (key, value) in want where !history.checkins.isEmpty {
                #expect(stats[key] == value, "seed \(seed): \(key) \(stats.compactText)")
            }
        }
    }
}

/// A date written digit by digit reads as the timestamp formatter writes it, years 1 to 9999.
@Test func datesAreWrittenAsTheTimestampFormatterWritesThem() {
    for day in stride(from: -719_162, through: 2_932_896, by: 331) {
        #expect(CivilDate(day: day).description == String(Timestamp.format(Double(day) * 86_400).prefix(10)))
    }
}

/// 1–6 trackers created over two months of 2026, habits with up to three schedules, daily
/// chances of a check-in (on scheduled days mostly) up to 2026-05-30.
struct RandomHistory {
    var trackers: [HabitTracker] = []
    var checkins: [HabitCheckin] = []

    init(_ random: inout SplitMix64) {
        let base = CivilDate("2026-01-01")!
        let end = CivilDate("2026-05-30")!
        for n in 0..<(1 + Int(random.next() % 6)) {
            let created = base.adding(days: Int(random.next() % 60))
            let irregular = random.next() % 4 == 0
            var schedules: [HabitSchedule] = []
            if !irregular {
                var from = created
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    var days = CivilDate.weekdays.filter { _ in random.next() % 2 == 0 }
                    if days.isEmpty { days = [CivilDate.weekdays[Int(random.next() % 7)]] }
                    schedules.append(HabitSchedule(fromDate: from.description, days: days))
                    from = from.adding(days: 1 + Int(random.next() % 40))
                }
            }
            let tracker = HabitTracker(
                id: "t\(n)", name: "T\(n)", kind: irregular ? .irregular : .habit, categoryID: "c",
                createdOn: created.description, createdAt: 0, schedules: schedules)
            trackers.append(tracker)
            let chance = 30 + random.next() % 70  // percent, on scheduled days
            var day = created
            while day <= end {
                let scheduled = tracker.schedule(on: day.description)?.days.contains(day.weekday) ?? true
                if random.next() % 100 < (scheduled ? chance : 10) {
                    checkins.append(HabitCheckin(trackerID: tracker.id, date: day.description))
                }
                day = day.adding(days: 1)
            }
        }
        checkins.sort { ($0.date, $0.trackerID) < ($1.date, $1.trackerID) }
    }
}

/// The statistics as docs/features/habits.md defines them, walking every day of every tracker.
enum Reference {
    static func statistics(_ trackers: [HabitTracker], _ checkins: [HabitCheckin]) -> [String: JSON] {
        let done = Set(checkins.map { "\($0.trackerID) \($0.date)" })
        func isScheduled(_ tracker: HabitTracker, _ day: CivilDate) -> Bool {
            guard tracker.kind == .habit, let schedule = tracker.schedule(on: day.description) else { return true }
            return schedule.days.contains(day.weekday)
        }
        var best = 0
        for tracker in trackers {
            let dates = checkins.filter { $0.trackerID == tracker.id }.compactMap { CivilDate($0.date) }
            guard let first = dates.min(), let last = dates.max() else { continue }
            var run = 0
            var day = first
            while day <= last {
                if isScheduled(tracker, day) {
                    run = done.contains("\(tracker.id) \(day)") ? run + 1 : 0
                    best = max(best, run)
                }
                day = day.adding(days: 1)
            }
        }
        let dates = Set(checkins.map(\.date))
        let perfect = dates.filter { date in
            let day = CivilDate(date)!
            let scheduled = trackers.filter { tracker in
                tracker.kind == .habit && !tracker.schedules.isEmpty && isScheduled(tracker, day)
                    && (tracker.createdOn <= date || done.contains("\(tracker.id) \(date)"))
            }
            return !scheduled.isEmpty && scheduled.allSatisfy { done.contains("\($0.id) \(date)") }
        }
        return [
            "best_period": .number(Double(best)), "perfect_days": .number(Double(perfect.count)),
            "trackers_completed": .number(Double(checkins.count)),
            "average": .number(dates.isEmpty ? 0 : Double(checkins.count) / Double(dates.count)),
        ]
    }
}
