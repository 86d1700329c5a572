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
            SELECT tracker_id, name, kind, category_id, emoji, color, pinned, created_on, created_at
            FROM habit_trackers WHERE user_id = ? AND tracker_id = ?
            """, [.text(user), .text(id)]
        ) { row in
            tracker = HabitTracker(
                id: row.text(0) ?? "", name: row.text(1) ?? "",
                kind: HabitTracker.Kind(rawValue: row.text(2) ?? "") ?? .habit, categoryID: row.text(3),
                emoji: row.text(4), color: row.text(5), pinned: row.integer(6) != 0, createdOn: row.text(7) ?? "",
                createdAt: row.real(8))
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

    /// Up to `limit` dates before `date` the tracker is checked on, newest first.
    public func habitCheckinDates(user: String, tracker: String, before date: String, limit: Int) throws -> [String] {
        var dates: [String] = []
        try query(
            """
            SELECT date FROM habit_checkins
            WHERE user_id = ? AND tracker_id = ? AND date < ? AND unchecked_at IS NULL
            ORDER BY date DESC LIMIT ?
            """, [.text(user), .text(tracker), .text(date), .integer(Int64(limit))]
        ) { row in dates.append(row.text(0) ?? "") }
        return dates
    }
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
