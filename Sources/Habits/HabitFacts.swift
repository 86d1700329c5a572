import Core
import JQ
import Store

/// What the `habit_stat` rules read about a user's trackers: the facts are computed here
/// (which days each tracker was scheduled, by the schedule in force that day), the statistics
/// are defined by the rules. Shaped so that jq does little work per check-in.
///
/// `{trackers, days}`:
/// - `trackers`: `{id, name, kind, category, schedule, created_on, checkins, scheduled_done}`:
///   the schedule in force now, the number of check-ins, and for each check-in on a scheduled
///   day its index among the tracker's scheduled days (an irregular event's every day), sorted;
///   consecutive scheduled days have consecutive indexes, unscheduled days do not count
/// - `days`: each date with a check-in: `{date, scheduled, done}`, the habits scheduled that day
///   and the trackers done
public enum HabitFacts {
    public static func input(trackers: [HabitTracker], checkins: [HabitCheckin]) -> JSON {
        let position = Dictionary(trackers.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        // Each check-in parsed once: (tracker position, day).
        var parsed: [(tracker: Int, date: CivilDate)] = []
        parsed.reserveCapacity(checkins.count)
        var datesByTracker = Array(repeating: [CivilDate](), count: trackers.count)
        for checkin in checkins {
            guard let index = position[checkin.trackerID], let date = CivilDate(checkin.date) else { continue }
            parsed.append((index, date))
            datesByTracker[index].append(date)
        }
        var scheduledDone = Array(repeating: [Int](), count: trackers.count)
        for (index, tracker) in trackers.enumerated() where !datesByTracker[index].isEmpty {
            scheduledDone[index] = scheduledIndexes(of: tracker, on: datesByTracker[index].sorted()).values.sorted()
        }
        var doneOn: [Int: [Int]] = [:]
        for (tracker, date) in parsed { doneOn[date.day, default: []].append(tracker) }
        // Habits' schedules as day numbers and weekday masks, and the day each was created.
        let habits: [(index: Int, created: Int, schedule: ScheduleSegments)] = trackers.enumerated()
            .compactMap { index, tracker in
                guard tracker.kind == .habit, let schedule = ScheduleSegments(tracker) else { return nil }
                return (index, CivilDate(tracker.createdOn)?.day ?? Int.min, schedule)
            }
        let days: [JSON] = doneOn.keys.sorted().map { day in
            let date = CivilDate(day: day)
            let done = doneOn[day] ?? []
            let scheduled = habits.filter { habit in
                habit.schedule.isScheduled(day) && (habit.created <= day || done.contains(habit.index))
            }
            return .object([
                "date": .string(date.description),
                "scheduled": .array(scheduled.map { .string(trackers[$0.index].id) }),
                "done": .array(done.map { .string(trackers[$0].id) }),
            ])
        }
        return .object([
            "trackers": .array(
                trackers.enumerated().map { index, tracker in
                    json(tracker, checkins: datesByTracker[index].count, scheduledDone: scheduledDone[index])
                }),
            "days": .array(days),
        ])
    }

    static func json(_ tracker: HabitTracker, checkins: Int, scheduledDone: [Int]) -> JSON {
        let schedule = tracker.schedules.last?.days ?? []
        return .object([
            "id": .string(tracker.id), "name": .string(tracker.name), "kind": .string(tracker.kind.rawValue),
            "category": tracker.categoryID.map(JSON.string) ?? .null,
            "schedule": .array(schedule.map(JSON.string)), "created_on": .string(tracker.createdOn),
            "checkins": .number(Double(checkins)), "scheduled_done": .array(scheduledDone.map { .number(Double($0)) }),
        ])
    }

    /// The run of consecutive scheduled days done that ends on `day` (0 when `day` is not a
    /// scheduled day the tracker was done): the tracker's current streak as of that day.
    public static func streak(of tracker: HabitTracker, on dates: [CivilDate], endingOn day: CivilDate) -> Int {
        let indexes = scheduledIndexes(of: tracker, on: Array(Set(dates)).sorted())
        guard var index = indexes[day.day] else { return 0 }
        let done = Set(indexes.values)
        var streak = 1
        while index > 0, done.contains(index - 1) {
            streak += 1
            index -= 1
        }
        return streak
    }

    /// For each of `dates` (sorted) on which the tracker was scheduled, its index among the
    /// tracker's scheduled days counted from the earliest of them.
    static func scheduledIndexes(of tracker: HabitTracker, on dates: [CivilDate]) -> [Int: Int] {
        guard let first = dates.first else { return [:] }
        guard tracker.kind == .habit, let schedule = ScheduleSegments(tracker) else {
            // An irregular event is "scheduled" every day.
            return Dictionary(dates.map { ($0.day, $0.day - first.day) }, uniquingKeysWith: { a, _ in a })
        }
        var result: [Int: Int] = [:]
        var previous = first.day
        var running = 0  // scheduled days in [first, previous)
        for date in dates {
            if date.day > previous { running += schedule.count(previous, date.day - 1) }
            previous = date.day
            if schedule.isScheduled(date.day) { result[date.day] = running }
        }
        return result
    }
}

/// A habit's schedule history as day numbers: segments `[start, next start)` each with a
/// weekday mask (Monday first); the first segment reaches back before its date.
struct ScheduleSegments {
    private let segments: [(start: Int, mask: [Bool])]

    /// Nil for a tracker without a schedule.
    init?(_ tracker: HabitTracker) {
        guard !tracker.schedules.isEmpty else { return nil }
        segments = tracker.schedules.enumerated().map { index, schedule in
            (
                index == 0 ? Int.min : (CivilDate(schedule.fromDate)?.day ?? Int.min),
                CivilDate.weekdays.map(schedule.days.contains)
            )
        }
    }

    private func segment(on day: Int) -> (start: Int, mask: [Bool]) { segments.last { $0.start <= day }! }

    /// Whether `day` is a scheduled day, by the schedule in force then.
    func isScheduled(_ day: Int) -> Bool { segment(on: day).mask[CivilDate(day: day).weekdayIndex] }

    /// Scheduled days in `[a, b]` (inclusive, a ≤ b), counted segment by segment.
    func count(_ a: Int, _ b: Int) -> Int {
        var total = 0
        var start = a
        while start <= b {
            let mask = segment(on: start).mask
            let next = segments.first { $0.start > start }?.start ?? Int.max
            let end = next == Int.max ? b : min(b, next - 1)
            let length = end - start + 1
            total += (length / 7) * mask.filter { $0 }.count
            for offset in 0..<(length % 7) where mask[CivilDate(day: start + (length / 7) * 7 + offset).weekdayIndex] {
                total += 1
            }
            start = end + 1
        }
        return total
    }
}
