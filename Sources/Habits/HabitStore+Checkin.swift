import Core
import Store

/// What one check-in reads: one tracker, one day's row, and the tracker's check-ins just
/// before a date, a page at a time. Each is a lookup by primary key, so a check-in costs the
/// same however long the tracker's history is.
extension StoreReader {
    /// The user's tracker `id` with its schedule history; nil when there is none.
    public func habitTracker(user: String, id: String) throws -> HabitTracker? {
        var tracker: HabitTracker?
        try query(
            """
            SELECT tracker_id, name, kind, category_id, emoji, color, pinned, created_on, created_at,
                checkins_changed_at, streak_date, streak_days, prior_streak_date, prior_streak_days
            FROM habit_trackers WHERE user_id = ? AND tracker_id = ?
            """, [.text(user), .text(id)]
        ) { row in
            var found = HabitTracker(
                id: row.text(0) ?? "", name: row.text(1) ?? "",
                kind: HabitTracker.Kind(rawValue: row.text(2) ?? "") ?? .habit, categoryID: row.text(3),
                emoji: row.text(4), color: row.text(5), pinned: row.integer(6) != 0, createdOn: row.text(7) ?? "",
                createdAt: row.real(8))
            found.checkinsChangedAt = row.isNull(9) ? nil : row.real(9)
            /// The day and the streak kept in columns `column` and `column + 1`.
            func dayStreak(_ column: Int32) -> DayStreak? {
                guard let text = row.text(column), let day = CivilDate(text), !row.isNull(column + 1) else {
                    return nil
                }
                return DayStreak(date: day, days: Int(row.integer(column + 1)))
            }
            found.keptStreaks = KeptStreaks(latest: dayStreak(10), prior: dayStreak(12))
            tracker = found
        }
        guard var found = tracker else { return nil }
        try query(
            "SELECT from_date, days FROM habit_schedules WHERE user_id = ? AND tracker_id = ? ORDER BY from_date",
            [.text(user), .text(id)]
        ) { row in
            let days = (row.text(1) ?? "").split(separator: ",").map(String.init)
            found.schedules.append(HabitSchedule(fromDate: row.text(0) ?? "", days: days))
        }
        return found
    }

    /// Whether the tracker was ever checked on `date`, and whether it still is.
    public func habitCheckinState(user: String, tracker: String, date: String) throws -> HabitCheckinState {
        var state = HabitCheckinState.never
        try query(
            "SELECT unchecked_at FROM habit_checkins WHERE user_id = ? AND tracker_id = ? AND date = ?",
            [.text(user), .text(tracker), .text(date)]
        ) { row in state = row.isNull(0) ? .checked : .uncheckedAgain }
        return state
    }

    /// Whether the tracker is checked on a date after `date`.
    public func habitIsChecked(user: String, tracker: String, after date: String) throws -> Bool {
        try first(
            "SELECT 1 FROM habit_checkins WHERE user_id = ? AND tracker_id = ? AND date > ? AND unchecked_at IS NULL LIMIT 1",
            [.text(user), .text(tracker), .text(date)]
        ) { _ in true } ?? false
    }

    /// When the tracker's check-in of `date` was made; nil when it has none.
    public func habitCheckedAt(user: String, tracker: String, date: String) throws -> Double? {
        try first(
            "SELECT checked_at FROM habit_checkins WHERE user_id = ? AND tracker_id = ? AND date = ?",
            [.text(user), .text(tracker), .text(date)]
        ) { $0.real(0) }
    }

    /// Up to `limit` dates before `date` the tracker was checked on at `time` (checked then
    /// or before, and not unchecked by then), newest first.
    public func habitCheckinDates(
        user: String, tracker: String, before date: String, asOf time: Double, limit: Int
    ) throws -> [String] {
        var dates: [String] = []
        try query(
            """
            SELECT date FROM habit_checkins
            WHERE user_id = ? AND tracker_id = ? AND date < ? AND checked_at <= ?
            AND (unchecked_at IS NULL OR unchecked_at > ?)
            ORDER BY date DESC LIMIT ?
            """, [.text(user), .text(tracker), .text(date), .real(time), .real(time), .integer(Int64(limit))]
        ) { row in dates.append(row.text(0) ?? "") }
        return dates
    }

    /// The check-ins of the tracker after `date` through `last` made at `time` or later (in
    /// date order), with their facts as kept in their `habit_checked` analytics: those
    /// whose streak a check-in of `date` that arrived late may lengthen.
    public func habitCheckinsAfter(
        user: String, tracker: String, date: String, through last: String, from time: Double
    ) throws -> [LaterHabitCheckin] {
        var checkins: [LaterHabitCheckin] = []
        try query(
            """
            SELECT c.date, c.checked_at, c.event, e.event_id,
                (SELECT a.properties FROM analytics_outbox a WHERE a.event = c.event AND a.name = 'habit_checked' LIMIT 1)
            FROM habit_checkins c JOIN events e ON e.id = c.event
            WHERE c.user_id = ? AND c.tracker_id = ? AND c.date > ? AND c.date <= ? AND c.checked_at >= ?
            AND c.unchecked_at IS NULL
            ORDER BY c.date
            """, [.text(user), .text(tracker), .text(date), .text(last), .real(time)]
        ) { row in
            guard let date = row.text(0), let eventID = row.text(3) else { return }
            checkins.append(
                LaterHabitCheckin(
                    date: date, checkedAt: row.real(1), eventRow: row.integer(2), eventID: eventID,
                    facts: try row.text(4).map { try JSONParser().parse($0) }?.objectValue))
        }
        return checkins
    }
}

/// A check-in made after another one's time, for a later date (see
/// ``StoreReader/habitCheckinsAfter(user:tracker:date:through:from:)``).
public struct LaterHabitCheckin: Sendable, Equatable {
    public var date: String
    public var checkedAt: Double
    public var eventRow: Int64
    public var eventID: String
    /// Its `habit_checked` facts (`streak_days`…), nil when none are kept.
    public var facts: JSONObject?
}

/// A tracker's day as the store has it.
public enum HabitCheckinState: Sendable, Equatable {
    /// Never checked.
    case never
    /// Checked.
    case checked
    /// Checked once and unchecked since: checking it again is kept, but not counted again
    /// toward a challenge.
    case uncheckedAgain
}
