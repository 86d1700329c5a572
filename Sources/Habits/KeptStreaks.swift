/// A day and the streak ending on it.
public struct DayStreak: Sendable, Equatable {
    public var date: CivilDate
    /// Consecutive counted days done ending on `date`, up to ``HabitStreak/limit``.
    public var days: Int

    public init(date: CivilDate, days: Int) {
        self.date = date
        self.days = days
    }
}

/// What a tracker keeps so that a check-in or an uncheck reads none of its earlier check-ins:
/// its latest counted day done and the streak ending on it, and the same as it was before that
/// day was checked (what unchecking it again gives back). Each is as the check-ins are now, and
/// nil when not known; the consumer decides each change's next value, in the change's own
/// transaction, and a change it cannot follow (a day before the latest, a schedule change)
/// leaves nothing known until a check-in reads the streak again.
public struct KeptStreaks: Sendable, Equatable {
    public var latest: DayStreak?
    public var prior: DayStreak?

    public init(latest: DayStreak? = nil, prior: DayStreak? = nil) {
        self.latest = latest
        self.prior = prior
    }

    /// `day` checked: the streak ending on it and what is kept then; nil when that is not
    /// known without reading earlier check-ins (nothing kept, or `day` before the latest).
    func checking(_ day: CivilDate, counted: StreakDays) -> (streak: Int, kept: KeptStreaks)? {
        // A day that does not count neither lengthens nor breaks a streak.
        guard counted.counts(day.day) else { return (0, self) }
        guard let latest, day > latest.date else { return nil }
        let streak = counted.previous(day.day) == latest.date.day ? min(latest.days + 1, HabitStreak.limit) : 1
        return (streak, KeptStreaks(latest: DayStreak(date: day, days: streak), prior: latest))
    }

    /// What is kept once `day` is unchecked.
    func unchecking(_ day: CivilDate, counted: StreakDays) -> KeptStreaks {
        guard counted.counts(day.day) else { return self }
        guard let latest, latest.date == day else { return KeptStreaks() }
        if let prior { return KeptStreaks(latest: prior) }
        // The day before ends the streak one shorter, unless the streak was cut at the limit.
        guard latest.days >= 2, latest.days < HabitStreak.limit, let previous = counted.previous(day.day) else {
            return KeptStreaks()
        }
        return KeptStreaks(latest: DayStreak(date: CivilDate(day: previous), days: latest.days - 1))
    }

    /// What is kept once `day` is checked with no day done after it, `reach` being the streak
    /// ending on it read up to one day past ``HabitStreak/limit`` (so that the streak ending on
    /// the day before is known too).
    static func read(_ day: CivilDate, reach: Int, counted: StreakDays) -> KeptStreaks {
        let before = reach >= 2 ? counted.previous(day.day) : nil
        return KeptStreaks(
            latest: DayStreak(date: day, days: min(reach, HabitStreak.limit)),
            prior: before.map { DayStreak(date: CivilDate(day: $0), days: min(reach - 1, HabitStreak.limit)) })
    }
}
