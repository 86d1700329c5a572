import Core
import Engine
import Foundation
import JQ
import Store
import TestSupport
import Testing

@testable import Habits

/// One check-in per tracker and date, within the tracker's life, at a cost that does not grow
/// with its history.
struct CheckinTests {
    /// Refusals and repeats name the tracker, the date and the bound.
    @Test func refusalsAndRepeatsNameTheTrackerAndTheDate() throws {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "general", "name": "General"], at: "2026-11-29T08:00:00Z")
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "walk", "name": "Walk", "schedule": ["mon"], "category": "general", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: "2026-11-29T08:00:00Z")
        let ancient = harness.send(
            "u1", "habit_checked", ["tracker_id": "walk", "date": "1900-01-01"], at: "2026-11-30T08:00:00Z")
        #expect(ancient.status == .rejected)
        #expect(
            ancient.message
                == "1900-01-01 is before tracker `walk` was created (2026-11-29); check-ins start on the day it was created"
        )
        harness.send("u1", "habit_checked", ["tracker_id": "walk"], at: "2026-11-30T08:00:00Z")
        let again = harness.send("u1", "habit_checked", ["tracker_id": "walk"], at: "2026-11-30T08:00:05Z")
        #expect(again.status == .duplicate && again.code == "already_checked")
        #expect(again.message == "tracker `walk` is already checked on 2026-11-30; it counts once")
        // The repeat is not stored: only the category, the tracker and the first check-in are events.
        #expect(try harness.store.connection.scalar("SELECT count(*) FROM events") == 3)
    }

    /// Histories of random days (seeded) on random schedules, with schedule changes: the streak
    /// read backwards page by page equals the streak over every date, for every day checked.
    @Test(arguments: 0..<24)
    func theStreakReadBackwardsEqualsTheStreakOverTheWholeHistory(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed))
        let start = try #require(CivilDate("2026-01-01"))
        var schedules: [HabitSchedule] = []
        for change in 0..<Int.random(in: 1...3, using: &random) {
            let days = CivilDate.weekdays.filter { _ in Bool.random(using: &random) }
            schedules.append(
                HabitSchedule(
                    fromDate: start.adding(days: change * 60).description, days: days.isEmpty ? ["sun"] : days))
        }
        let tracker = HabitTracker(
            id: "t", name: "T", kind: seed % 5 == 0 ? .irregular : .habit, createdOn: start.description, createdAt: 0,
            schedules: seed % 5 == 0 ? [] : schedules)
        let density = Double(seed % 4 + 1) / 5
        let dates = (0..<200).map { start.adding(days: $0) }.filter { _ in
            Double.random(in: 0..<1, using: &random) < density
        }
        for day in dates {
            let earlier = dates.filter { $0 < day }.reversed()
            let read = HabitStreak.ending(on: day, of: tracker) { before, limit in
                Array(earlier.filter { $0 < before }.prefix(limit))
            }
            let whole = HabitFacts.streak(of: tracker, on: dates.filter { $0 <= day }, endingOn: day)
            #expect(read == whole, "seed \(seed), \(day)")
        }
    }

    /// A streak broken three days back reads one page of earlier check-ins, however many there
    /// are before the break; an unbroken one reads as many pages as it is long, up to the
    /// limit (366 days: 6 pages), however long the history.
    @Test(arguments: [(1_000, 3, 1), (10_000, 3, 1), (200, 300, 4), (10_000, 20_000, 6)])
    func aStreakReadsOnlyAsFarBackAsItReaches(history: Int, gapDaysBack: Int, pages: Int) throws {
        let today = try #require(CivilDate("2026-11-30"))
        let tracker = HabitTracker(
            id: "t", name: "T", kind: .irregular, createdOn: today.adding(days: -history).description, createdAt: 0)
        let earlier = (1...history).map { today.adding(days: -$0) }.filter { $0 != today.adding(days: -gapDaysBack) }
        var read = 0
        let streak = HabitStreak.ending(on: today, of: tracker) { before, limit in
            read += 1
            return Array(earlier.filter { $0 < before }.prefix(limit))
        }
        #expect(streak == min(gapDaysBack, history + 1, HabitStreak.limit))
        #expect(read == pages)
    }
}
