/// A tracker's streak ending on a day, read backwards only as far as the streak reaches, and
/// at most ``limit`` days: the same number as ``HabitFacts/streak(of:on:endingOn:)`` over all
/// of the tracker's dates up to that limit, without reading them all (a check-in's cost must
/// not grow with the tracker's history, not even along an unbroken streak).
enum HabitStreak {
    /// How many earlier check-ins are read at a time.
    static let pageSize = 64
    /// The longest streak counted (a year of daily check-ins): at most 6 pages are read.
    static let limit = 366

    /// The run of consecutive scheduled days done that ends on `day` (0 when `day` is not a
    /// scheduled day), up to `limit`: `day` counts as done; `earlier(date, limit)` gives up to
    /// `limit` dates before `date` the tracker is done on, newest first.
    static func ending(
        on day: CivilDate, of tracker: HabitTracker, limit: Int = limit,
        earlier: (CivilDate, Int) throws -> [CivilDate]
    ) rethrows -> Int {
        let counted = StreakDays(tracker)
        guard counted.counts(day.day) else { return 0 }
        var streak = 1
        guard var wanted = counted.previous(day.day) else { return streak }
        var cursor = day
        while true {
            let page = try earlier(cursor, pageSize)
            for date in page {
                // A later date is a day done that was not scheduled: it neither counts nor breaks.
                if date.day > wanted { continue }
                if date.day < wanted { return streak }
                streak += 1
                guard streak < limit, let next = counted.previous(wanted) else { return streak }
                wanted = next
            }
            guard page.count == pageSize, let last = page.last else { return streak }
            cursor = last
        }
    }
}

/// The days a tracker's streak counts: a habit's scheduled days (by the schedule in force on
/// each), every day for an irregular event.
struct StreakDays {
    private let schedule: ScheduleSegments?

    init(_ tracker: HabitTracker) { schedule = ScheduleSegments.counted(for: tracker) }

    /// Whether `day` counts.
    func counts(_ day: Int) -> Bool { schedule?.isScheduled(day) ?? true }

    /// The counted day before `day` (nil past a year without one).
    func previous(_ day: Int) -> Int? {
        var candidate = day - 1
        while !counts(candidate) {
            candidate -= 1
            if day - candidate > 366 { return nil }
        }
        return candidate
    }
}
