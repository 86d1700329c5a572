import Store

/// A user's check-ins (days unchecked again are not check-ins).
private let liveCheckins = "FROM habit_checkins WHERE user_id = ? AND unchecked_at IS NULL"
/// Each tracker's check-in years (its live check-ins as bits), a tracker at a time.
private let checkinYearsByTracker = """
    SELECT tracker_id, year, \(CheckinYears.columns) FROM habit_checkin_years WHERE user_id = ? ORDER BY tracker_id, year
    """
/// One tracker's check-in years.
private let trackerCheckinYears = """
    SELECT year, \(CheckinYears.columns) FROM habit_checkin_years WHERE user_id = ? AND tracker_id = ? ORDER BY year
    """
/// The check-ins by date.
private let checkinsByDate = "SELECT tracker_id, date \(liveCheckins) ORDER BY date, tracker_id"

/// The habits feature's rows: trackers with their schedule history, categories and check-ins,
/// per user. Read by the consumer and the views; written only by the habit change effect.
extension StoreReader {
    /// A user's habit trackers (with their schedule history), oldest first.
    public func habitTrackers(user: String) throws -> [HabitTracker] {
        var trackers: [HabitTracker] = []
        var index: [String: Int] = [:]
        try query(
            """
            SELECT tracker_id, name, kind, category_id, emoji, color, pinned, created_on, created_at
            FROM habit_trackers WHERE user_id = ? ORDER BY created_at, tracker_id
            """, [.text(user)]
        ) { row in
            let id = row.text(0) ?? ""
            index[id] = trackers.count
            trackers.append(
                HabitTracker(
                    id: id, name: row.text(1) ?? "", kind: HabitTracker.Kind(rawValue: row.text(2) ?? "") ?? .habit,
                    categoryID: row.text(3), emoji: row.text(4), color: row.text(5), pinned: row.integer(6) != 0,
                    createdOn: row.text(7) ?? "", createdAt: row.real(8)))
        }
        try query(
            "SELECT tracker_id, from_date, days FROM habit_schedules WHERE user_id = ? ORDER BY tracker_id, from_date",
            [.text(user)]
        ) { row in
            guard let position = index[row.text(0) ?? ""] else { return }
            let days = (row.text(2) ?? "").split(separator: ",").map(String.init)
            trackers[position].schedules.append(HabitSchedule(fromDate: row.text(1) ?? "", days: days))
        }
        return trackers
    }

    public func habitCategories(user: String) throws -> [HabitCategory] {
        var categories: [HabitCategory] = []
        try query(
            "SELECT category_id, name FROM habit_categories WHERE user_id = ? ORDER BY created_at, category_id",
            [.text(user)]
        ) { row in categories.append(HabitCategory(id: row.text(0) ?? "", name: row.text(1) ?? ""))
        }
        return categories
    }

    /// A number that grows with every change to the user's trackers, schedules, categories or
    /// check-ins (0 before the first): what is derived from them can be kept until it changes.
    public func habitDataVersion(user: String) throws -> Int64 {
        try first("SELECT version FROM habit_versions WHERE user_id = ?", [.text(user)]) { $0.integer(0) } ?? 0
    }

    /// Each tracker's check-in days (days since 1970), ascending: the check-ins of
    /// ``habitCheckins(user:)``, read from the bits kept a tracker and year
    /// (``CheckinYears``: a few rows a tracker instead of one a check-in). A tracker without a
    /// check-in has no entry. What the statistics read.
    public func habitCheckinDays(user: String) throws -> [String: [Int]] {
        var days: [String: [Int]] = [:]
        var tracker = ""
        var trackerDays: [Int] = []
        func keep() { if !trackerDays.isEmpty { days[tracker] = trackerDays } }
        try query(checkinYearsByTracker, [.text(user)]) { row in
            // The rows come a tracker at a time: its id is made once.
            if !row.withUTF8(0, { $0?.elementsEqual(tracker.utf8) ?? false }) {
                keep()
                tracker = row.text(0) ?? ""
                trackerDays = []
            }
            CheckinYears.appendDays(year: Int(row.integer(1)), word: { row.integer(Int32($0) + 2) }, to: &trackerDays)
        }
        keep()
        return days
    }

    /// The check-in days of the user's tracker `id` (as ``habitCheckinDays(user:)`` gives each).
    public func habitCheckinDays(user: String, tracker id: String) throws -> [Int] {
        var days: [Int] = []
        try query(trackerCheckinYears, [.text(user), .text(id)]) { row in
            CheckinYears.appendDays(year: Int(row.integer(0)), word: { row.integer(Int32($0) + 1) }, to: &days)
        }
        return days
    }

    /// For each of the user's trackers, the user's habit version (``habitDataVersion(user:)``)
    /// when its check-ins last changed, or when it was created: its check-in days read at one
    /// version are its days until the version moves.
    public func habitCheckinVersions(user: String) throws -> [String: Int64] {
        var versions: [String: Int64] = [:]
        try query("SELECT tracker_id, checkins_version FROM habit_trackers WHERE user_id = ?", [.text(user)]) { row in
            if let id = row.text(0) { versions[id] = row.integer(1) }
        }
        return versions
    }

    /// A user's check-ins, by date (days unchecked again are not check-ins).
    public func habitCheckins(user: String) throws -> [HabitCheckin] {
        try rows(checkinsByDate, [.text(user)]) {
            HabitCheckin(trackerID: $0.text(0) ?? "", date: $0.text(1) ?? "")
        }
    }

}

extension Store {
    /// Applies a change to `user`'s habit trackers, categories or check-ins; a check or an
    /// uncheck keeps `streaks` as the tracker's (nothing known by default), a schedule change
    /// forgets them.
    public func applyHabitChange(
        _ change: HabitChange, user: String, at: Double, event: Int64?, streaks: KeptStreaks = KeptStreaks()
    ) throws {
        // In the same transaction as the change: whoever reads the version first and the data
        // after it never keeps newer data under an older version.
        try run(
            """
            INSERT INTO habit_versions (user_id, version) VALUES (?, 1)
            ON CONFLICT (user_id) DO UPDATE SET version = habit_versions.version + 1
            """, [.text(user)])
        switch change {
        case .trackerCreated(let tracker):
            try run(
                """
                INSERT INTO habit_trackers (user_id, tracker_id, name, kind, category_id, emoji, color, pinned, created_on, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(user), .text(tracker.id), .text(tracker.name), .text(tracker.kind.rawValue),
                    .optional(tracker.categoryID), .optional(tracker.emoji), .optional(tracker.color),
                    .integer(tracker.pinned ? 1 : 0), .text(tracker.createdOn), .real(tracker.createdAt),
                ])
            for schedule in tracker.schedules {
                try applyHabitChange(
                    .scheduleChanged(trackerID: tracker.id, schedule: schedule), user: user, at: at, event: event)
            }
            try markCheckinsChanged(user: user, tracker: tracker.id, at: nil)
        case .trackerUpdated(let id, let name, let category, let emoji, let color, let pinned):
            var sets: [String] = []
            var values: [SQLValue] = []
            if let name { sets.append("name = ?"); values.append(.text(name)) }
            if let category { sets.append("category_id = ?"); values.append(.optional(category)) }
            if let emoji { sets.append("emoji = ?"); values.append(.optional(emoji)) }
            if let color { sets.append("color = ?"); values.append(.optional(color)) }
            if let pinned { sets.append("pinned = ?"); values.append(.integer(pinned ? 1 : 0)) }
            guard !sets.isEmpty else { return }
            try run(
                "UPDATE habit_trackers SET \(sets.joined(separator: ", ")) WHERE user_id = ? AND tracker_id = ?",
                values + [.text(user), .text(id)])
        case .scheduleChanged(let id, let schedule):
            try run(
                """
                INSERT INTO habit_schedules (user_id, tracker_id, from_date, days) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, tracker_id, from_date) DO UPDATE SET days = excluded.days
                """,
                [.text(user), .text(id), .text(schedule.fromDate), .text(schedule.days.joined(separator: ","))])
            // Which days count changed: the streaks are read again at the next check-in.
            try keepStreaks(KeptStreaks(), user: user, tracker: id)
        case .trackerDeleted(let id):
            // Its schedules and check-ins go with it (ON DELETE CASCADE); its name, emoji and
            // colour leave the event log, its unsent analytics are withdrawn.
            try run(
                "DELETE FROM habit_trackers WHERE user_id = ? AND tracker_id = ?", [.text(user), .text(id)])
            try eraseTrackerTraces(user: user, tracker: id, at: at)
        case .categoryCreated(let category):
            try run(
                "INSERT INTO habit_categories (user_id, category_id, name, created_at) VALUES (?, ?, ?, ?)",
                [.text(user), .text(category.id), .text(category.name), .real(at)])
        case .categoryRenamed(let category):
            try run(
                "UPDATE habit_categories SET name = ? WHERE user_id = ? AND category_id = ?",
                [.text(category.name), .text(user), .text(category.id)])
        case .categoryDeleted(let id):
            try run(
                "UPDATE habit_trackers SET category_id = NULL WHERE user_id = ? AND category_id = ?",
                [.text(user), .text(id)])
            try run(
                "DELETE FROM habit_categories WHERE user_id = ? AND category_id = ?", [.text(user), .text(id)])
            try eraseCategoryTraces(user: user, category: id)
        case .checked(let checkin):
            // A day checked before and unchecked since is checked again in its row.
            try run(
                """
                INSERT INTO habit_checkins (user_id, tracker_id, date, checked_at, event) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id, tracker_id, date) DO UPDATE
                SET checked_at = excluded.checked_at, event = excluded.event, unchecked_at = NULL
                """,
                [
                    .text(user), .text(checkin.trackerID), .text(checkin.date), .real(at),
                    event.map(SQLValue.integer) ?? .null,
                ])
            try keepCheckinBit(user: user, checkin: checkin, checked: true)
            try markCheckinsChanged(user: user, tracker: checkin.trackerID, at: at, streaks: streaks)
        case .unchecked(let checkin):
            // Kept, marked unchecked: checking the day again then counts once (see
            // ``HabitCheckinState``).
            try run(
                """
                UPDATE habit_checkins SET unchecked_at = ?
                WHERE user_id = ? AND tracker_id = ? AND date = ? AND unchecked_at IS NULL
                """,
                [.real(at), .text(user), .text(checkin.trackerID), .text(checkin.date)])
            try keepCheckinBit(user: user, checkin: checkin, checked: false)
            try markCheckinsChanged(user: user, tracker: checkin.trackerID, at: at, streaks: streaks)
        }
    }

    /// Gives the tracker's check-ins the user's habit version just made (see
    /// ``StoreReader/habitCheckinVersions(user:)``); each version is made once, so a tracker
    /// deleted and made again under its id never has its old days' version. A check or an
    /// uncheck made `at` a time also keeps the latest such time and `streaks`.
    private func markCheckinsChanged(
        user: String, tracker id: String, at: Double?, streaks: KeptStreaks = KeptStreaks()
    ) throws {
        guard let at else {
            try run(HabitTrackerUpdates.version, [.text(user), .text(user), .text(id)])
            return
        }
        try run(
            HabitTrackerUpdates.checkinsChanged,
            [.text(user), .real(at), .real(at)] + HabitTrackerUpdates.values(streaks) + [.text(user), .text(id)])
    }

    /// Sets or clears the check-in's day in its tracker's ``CheckinYears``.
    private func keepCheckinBit(user: String, checkin: HabitCheckin, checked: Bool) throws {
        guard let date = CivilDate(checkin.date) else { return }
        let (year, word, bit) = CheckinYears.position(of: date)
        let mask = Int64(1) << bit
        if checked {
            try run(
                CheckinYears.setBit[word],
                [.text(user), .text(checkin.trackerID), .integer(Int64(year)), .integer(mask)])
        } else {
            try run(
                CheckinYears.clearBit[word],
                [.integer(~mask), .text(user), .text(checkin.trackerID), .integer(Int64(year))])
        }
    }

    /// Keeps `streaks` as the tracker's.
    private func keepStreaks(_ streaks: KeptStreaks, user: String, tracker id: String) throws {
        try run(HabitTrackerUpdates.streaks, HabitTrackerUpdates.values(streaks) + [.text(user), .text(id)])
    }
}

/// The updates of a tracker's row that follow its check-ins.
private enum HabitTrackerUpdates {
    private static let setVersion = "checkins_version = (SELECT version FROM habit_versions WHERE user_id = ?)"
    private static let setStreaks = "streak_date = ?, streak_days = ?, prior_streak_date = ?, prior_streak_days = ?"
    private static let tracker = "WHERE user_id = ? AND tracker_id = ?"
    /// The user's habit version (parameters: user, user, tracker).
    static let version = "UPDATE habit_trackers SET \(setVersion) \(tracker)"
    /// The version, the latest time of a check or uncheck and the streaks (parameters: user,
    /// the time twice, ``values(_:)``, user, tracker).
    static let checkinsChanged = """
        UPDATE habit_trackers SET \(setVersion),
            checkins_changed_at = CASE WHEN checkins_changed_at > ? THEN checkins_changed_at ELSE ? END, \(setStreaks)
        \(tracker)
        """
    /// The streaks alone (parameters: ``values(_:)``, user, tracker).
    static let streaks = "UPDATE habit_trackers SET \(setStreaks) \(tracker)"

    /// The four streak columns' values.
    static func values(_ streaks: KeptStreaks) -> [SQLValue] {
        [streaks.latest, streaks.prior].flatMap { kept -> [SQLValue] in
            [.optional(kept?.date.description), .optional(kept.map { Int64($0.days) })]
        }
    }
}
