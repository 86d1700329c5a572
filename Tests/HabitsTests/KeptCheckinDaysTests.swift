import Core
import Features
import RuleEngine
import Store
import TestSupport
import Testing

@testable import Habits

/// The statistics keep each tracker's check-in days with the version they were read at and
/// re-read only the trackers whose check-ins changed since: after every kind of change, on
/// every backend, what they use is what a fresh read gives, and so are the statistics.
struct KeptCheckinDaysTests {
    typealias Change = (name: String, change: HabitChange)

    static let changes: [Change] = [
        ("a day checked", .checked(HabitCheckin(trackerID: "a", date: "2026-11-03"))),
        ("another tracker's day checked", .checked(HabitCheckin(trackerID: "b", date: "2026-11-05"))),
        ("a day unchecked", .unchecked(HabitCheckin(trackerID: "a", date: "2026-11-01"))),
        ("the same day checked again", .checked(HabitCheckin(trackerID: "a", date: "2026-11-01"))),
        (
            "a schedule changed",
            .scheduleChanged(trackerID: "a", schedule: HabitSchedule(fromDate: "2026-11-04", days: ["mon"]))
        ),
        ("a tracker deleted", .trackerDeleted(trackerID: "b")),
        ("made again under its id", .trackerCreated(Self.tracker("b", kind: .irregular))),
        ("its first day checked", .checked(HabitCheckin(trackerID: "b", date: "2026-11-06"))),
        ("a third tracker", .trackerCreated(Self.tracker("c", kind: .irregular))),
        ("an older day of the first", .checked(HabitCheckin(trackerID: "a", date: "2026-10-20"))),
    ]

    static func tracker(_ id: String, kind: HabitTracker.Kind) -> HabitTracker {
        HabitTracker(
            id: id, name: "Tracker \(id)", kind: kind, createdOn: "2026-10-01", createdAt: 0,
            schedules: kind == .habit ? [HabitSchedule(fromDate: "2026-10-01", days: CivilDate.weekdays)] : [])
    }

    @Test(arguments: TestStore.names)
    func whatIsKeptIsWhatAFreshReadGives(backend: String) throws {
        let testStore = try TestStore(backend, schema: Features.all.schema)
        let store = testStore.store
        let evaluator = try #require(
            Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        try store.ensureUser("u1", firstSeenAt: 0)
        try store.ensureUser("u2", firstSeenAt: 0)
        for user in ["u1", "u2"] {
            try store.applyHabitChange(.trackerCreated(Self.tracker("a", kind: .habit)), user: user, at: 0, event: nil)
            try store.applyHabitChange(
                .trackerCreated(Self.tracker("b", kind: .irregular)), user: user, at: 0, event: nil)
            for date in ["2026-11-01", "2026-11-02"] {
                try store.applyHabitChange(
                    .checked(HabitCheckin(trackerID: "a", date: date)), user: user, at: 0, event: nil)
            }
        }
        _ = try HabitStatistics.checkinDays(user: "u1", store: store)
        _ = try HabitStatistics.checkinDays(user: "u2", store: store)
        for (n, step) in Self.changes.enumerated() {
            try store.applyHabitChange(step.change, user: "u1", at: Double(n + 1), event: nil)
            let kept = try HabitStatistics.checkinDays(user: "u1", store: store)
            #expect(kept == (try store.habitCheckinDays(user: "u1")), "after \(step.name)")
            let stats = try HabitStatistics.computed(user: "u1", store: store, evaluator: evaluator)
            store.derivedCache.removeAll()
            #expect(
                stats == (try HabitStatistics.computed(user: "u1", store: store, evaluator: evaluator)),
                "after \(step.name)")
            // Another user's days stay theirs.
            #expect(
                try HabitStatistics.checkinDays(user: "u2", store: store) == (try store.habitCheckinDays(user: "u2")))
        }
    }

    /// Days kept are used while the versions hold: a row changed behind the store's back (no
    /// version moved) is not seen, which is how a screen after one check-in reads one tracker.
    @Test func unchangedTrackersAreNotReadAgain() throws {
        let testStore = try TestStore("sqlite", schema: Features.all.schema)
        let store = testStore.store
        try store.ensureUser("u1", firstSeenAt: 0)
        try store.applyHabitChange(.trackerCreated(Self.tracker("a", kind: .irregular)), user: "u1", at: 0, event: nil)
        try store.applyHabitChange(.trackerCreated(Self.tracker("b", kind: .irregular)), user: "u1", at: 0, event: nil)
        try store.applyHabitChange(
            .checked(HabitCheckin(trackerID: "a", date: "2026-11-01")), user: "u1", at: 0, event: nil)
        let before = try HabitStatistics.checkinDays(user: "u1", store: store)
        try store.run("DELETE FROM habit_checkins WHERE tracker_id = 'a'", [])
        #expect(try HabitStatistics.checkinDays(user: "u1", store: store) == before)
        try store.applyHabitChange(
            .checked(HabitCheckin(trackerID: "b", date: "2026-11-02")), user: "u1", at: 1, event: nil)
        let after = try HabitStatistics.checkinDays(user: "u1", store: store)
        #expect(after["a"] == before["a"])
        #expect(after["b"] == [try #require(CivilDate("2026-11-02")).day])
    }
}
