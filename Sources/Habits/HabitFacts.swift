import Core
import JQ
import Store

/// What the `habit_stat` rules read about a user's trackers: the facts are computed here
/// (which days each tracker was scheduled, by the schedule in force that day), the statistics
/// are defined by the rules. Shaped so that jq does little work: a few numbers per tracker run
/// and per day, never one value per check-in.
///
/// `{trackers, days}`:
/// - `trackers`: `{id, name, kind, category, schedule, created_on, checkins, runs}`: the
///   schedule in force now, the number of check-ins, and `runs`: `[first_date, length]` for
///   each run of consecutive scheduled days done (an irregular event is scheduled every day),
///   oldest first; a day the tracker is not scheduled neither extends nor breaks a run
/// - `days`: each date with a check-in, in date order: `{date, scheduled, done, missed}`, how
///   many habits were scheduled that day, how many trackers were done, and how many of the
///   scheduled habits were not done
public enum HabitFacts {
    /// The facts of `checkins` (in any order) as a ``JSON`` value: the same as ``value(trackers:days:)``.
    public static func input(trackers: [HabitTracker], checkins: [HabitCheckin]) throws -> JSON {
        var days: [String: [Int]] = [:]
        for checkin in checkins {
            if let day = CivilDate(checkin.date)?.day { days[checkin.trackerID, default: []].append(day) }
        }
        return try value(trackers: trackers, days: days).json()
    }

    /// The facts as the rules read them, built as a libjq value (no ``JSON`` tree in between):
    /// `days` holds each tracker's check-in days (days since 1970) by tracker id, ascending as
    /// the store reads them (any order is sorted); those of trackers not in `trackers` are left out.
    public static func value(trackers: [HabitTracker], days: [String: [Int]]) -> JV {
        let daysByTracker = trackers.map { days[$0.id] ?? [] }
        let schedules = trackers.map(ScheduleSegments.counted(for:))
        // Habits with their schedules, and the day each was created.
        let habits: [(index: Int, created: Int, schedule: ScheduleSegments)] = trackers.indices.compactMap { index in
            guard let schedule = schedules[index] else { return nil }
            return (index, CivilDate(trackers[index].createdOn)?.day ?? Int.min, schedule)
        }
        let keys = Keys()
        let checkins = CheckinsByDay(daysByTracker)
        var dates = DateStrings()
        var done = Array(repeating: false, count: trackers.count)
        var dayValues = JVArrayBuilder()
        for (day, range) in checkins.days {
            let trackersDone = checkins.trackers[range]
            for index in trackersDone { done[index] = true }
            defer { for index in trackersDone { done[index] = false } }
            let weekday = CivilDate(day: day).weekdayIndex
            var scheduled = 0
            var missed = 0
            for habit in habits where habit.schedule.isScheduled(day, weekday: weekday) {
                if done[habit.index] {
                    scheduled += 1
                } else if habit.created <= day {
                    scheduled += 1
                    missed += 1
                }
            }
            var entry = JVObjectBuilder()
            entry.set(keys.date, dates.add(day))
            entry.set(keys.scheduled, number: Double(scheduled))
            entry.set(keys.done, number: Double(trackersDone.count))
            entry.set(keys.missed, number: Double(missed))
            dayValues.append(object: entry)
        }
        var trackerValues = JVArrayBuilder()
        for (index, tracker) in trackers.enumerated() {
            let sorted = sortedDistinct(daysByTracker[index])
            trackerValues.append(
                object: object(
                    tracker, checkins: daysByTracker[index].count, runs: runs(schedules[index], on: sorted),
                    dates: dates, keys: keys))
        }
        var facts = JVObjectBuilder()
        facts.set(keys.trackers, array: trackerValues)
        facts.set(keys.days, array: dayValues)
        return facts.build()
    }

    /// Every check-in, by day and then tracker: sorted once as one number each (its day and
    /// tracker index), not gathered in a dictionary of arrays.
    private struct CheckinsByDay {
        /// The trackers done, day after day: those of day `days[n]` are at `days[n].range`.
        private(set) var trackers: [Int] = []
        /// Each day with a check-in, in order.
        private(set) var days: [(day: Int, range: Range<Int>)] = []

        init(_ daysByTracker: [[Int]]) {
            let count = max(daysByTracker.count, 1)
            let firstDay = daysByTracker.compactMap { $0.min() }.min() ?? 0
            var encoded: [Int] = []
            encoded.reserveCapacity(daysByTracker.reduce(0) { $0 + $1.count })
            for (index, days) in daysByTracker.enumerated() {
                for day in days { encoded.append((day - firstDay) * count + index) }
            }
            encoded.sort()
            trackers.reserveCapacity(encoded.count)
            for (position, value) in encoded.enumerated() {
                let day = firstDay + value / count
                trackers.append(value % count)
                if let last = days.last, last.day == day {
                    days[days.count - 1].range = last.range.lowerBound..<(position + 1)
                } else {
                    days.append((day, position..<(position + 1)))
                }
            }
        }
    }

    /// The date strings of the days with a check-in, each made once: the days and the runs that
    /// start on them share it.
    private struct DateStrings {
        private var days: [Int] = []
        private var strings: [JV] = []

        /// The string of `day`, later than every day added before.
        mutating func add(_ day: Int) -> JV {
            let string = JV(string: CivilDate(day: day).description)
            days.append(day)
            strings.append(string)
            return string
        }

        /// The string of `day`: the one added, or a new one.
        func string(_ day: Int) -> JV {
            var low = 0
            var high = days.count
            while low < high {
                let middle = (low + high) / 2
                if days[middle] < day { low = middle + 1 } else { high = middle }
            }
            return low < days.count && days[low] == day ? strings[low] : JV(string: CivilDate(day: day).description)
        }
    }

    /// The member names, made once per facts value.
    private struct Keys {
        let trackers = JV(string: "trackers"), days = JV(string: "days")
        let date = JV(string: "date"), scheduled = JV(string: "scheduled"), done = JV(string: "done")
        let missed = JV(string: "missed")
        let id = JV(string: "id"), name = JV(string: "name"), kind = JV(string: "kind")
        let category = JV(string: "category"), schedule = JV(string: "schedule")
        let createdOn = JV(string: "created_on"), checkins = JV(string: "checkins"), runs = JV(string: "runs")
    }

    private static func object(
        _ tracker: HabitTracker, checkins: Int, runs: [(first: Int, length: Int)], dates: DateStrings, keys: Keys
    ) -> JVObjectBuilder {
        var object = JVObjectBuilder()
        object.set(keys.id, string: tracker.id)
        object.set(keys.name, string: tracker.name)
        object.set(keys.kind, string: tracker.kind.rawValue)
        object.set(keys.category, string: tracker.categoryID)
        var schedule = JVArrayBuilder()
        for day in tracker.schedules.last?.days ?? [] { schedule.append(string: day) }
        object.set(keys.schedule, array: schedule)
        object.set(keys.createdOn, string: tracker.createdOn)
        object.set(keys.checkins, number: Double(checkins))
        var runValues = JVArrayBuilder()
        for run in runs {
            var pair = JVArrayBuilder(capacity: 2)
            pair.append(dates.string(run.first))
            pair.append(number: Double(run.length))
            runValues.append(array: pair)
        }
        object.set(keys.runs, array: runValues)
        return object
    }

    /// `days` sorted, without repeats (already so when the check-ins come by tracker and date).
    static func sortedDistinct(_ days: [Int]) -> [Int] {
        var ascending = true
        for i in days.indices.dropFirst() where days[i - 1] >= days[i] {
            ascending = false
            break
        }
        return ascending ? days : Array(Set(days)).sorted()
    }

    /// The runs of consecutive scheduled days done among `days` (sorted, distinct day numbers)
    /// under `schedule` (nil: every day): each run's first day and length, oldest first.
    static func runs(_ schedule: ScheduleSegments?, on days: [Int]) -> [(first: Int, length: Int)] {
        var runs: [(first: Int, length: Int)] = []
        var lastIndex = Int.min
        for (day, index) in scheduledIndexes(schedule, on: days) {
            if index == lastIndex &+ 1, !runs.isEmpty {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((day, 1))
            }
            lastIndex = index
        }
        return runs
    }

    /// The run of consecutive scheduled days done that ends on `day` (0 when `day` is not a
    /// scheduled day the tracker was done): the tracker's current streak as of that day.
    public static func streak(of tracker: HabitTracker, on dates: [CivilDate], endingOn day: CivilDate) -> Int {
        let schedule = ScheduleSegments.counted(for: tracker)
        let pairs = scheduledIndexes(schedule, on: Array(Set(dates.map(\.day))).sorted())
        guard var index = pairs.first(where: { $0.day == day.day })?.index else { return 0 }
        let done = Set(pairs.map(\.index))
        var streak = 1
        while index > 0, done.contains(index - 1) {
            streak += 1
            index -= 1
        }
        return streak
    }

    /// For each of `days` (sorted, distinct) on which the tracker was scheduled (every day
    /// without a schedule: an irregular event), its index among the tracker's scheduled days
    /// counted from the earliest of them, in order.
    static func scheduledIndexes(_ schedule: ScheduleSegments?, on days: [Int]) -> [(day: Int, index: Int)] {
        guard let first = days.first else { return [] }
        guard let schedule else { return days.map { ($0, $0 - first) } }
        var result: [(day: Int, index: Int)] = []
        result.reserveCapacity(days.count)
        var previous = first
        var running = 0  // scheduled days in [first, previous)
        for day in days {
            if day > previous { running += schedule.count(previous, day - 1) }
            previous = day
            if schedule.isScheduled(day) { result.append((day, running)) }
        }
        return result
    }
}

/// A habit's schedule history as day numbers: segments `[start, next start)` each with a
/// weekday mask (bit 0 Monday); the first segment reaches back before its date.
struct ScheduleSegments {
    private let starts: [Int]
    private let masks: [UInt8]

    /// The days that count for `tracker`: its schedule's for a habit; nil (every day) for an
    /// irregular event or a habit without a schedule.
    static func counted(for tracker: HabitTracker) -> ScheduleSegments? {
        tracker.kind == .habit ? ScheduleSegments(tracker) : nil
    }

    /// Nil for a tracker without a schedule.
    init?(_ tracker: HabitTracker) {
        guard !tracker.schedules.isEmpty else { return nil }
        starts = tracker.schedules.enumerated().map { index, schedule in
            index == 0 ? Int.min : (CivilDate(schedule.fromDate)?.day ?? Int.min)
        }
        masks = tracker.schedules.map { schedule in
            var mask: UInt8 = 0
            for (bit, name) in CivilDate.weekdays.enumerated() where schedule.days.contains(name) { mask |= 1 << bit }
            return mask
        }
    }

    /// The position of the segment in force on `day`.
    private func segment(on day: Int) -> Int {
        var position = starts.count - 1
        while position > 0, starts[position] > day { position -= 1 }
        return position
    }

    /// Whether `day` is a scheduled day, by the schedule in force then.
    func isScheduled(_ day: Int) -> Bool { isScheduled(day, weekday: CivilDate(day: day).weekdayIndex) }

    /// Whether `day` (whose weekday index is `weekday`) is a scheduled day.
    func isScheduled(_ day: Int, weekday: Int) -> Bool { masks[segment(on: day)] & (1 << weekday) != 0 }

    /// Scheduled days in `[a, b]` (inclusive, a ≤ b), counted segment by segment.
    func count(_ a: Int, _ b: Int) -> Int {
        var total = 0
        var start = a
        var position = segment(on: a)
        while start <= b {
            let mask = masks[position]
            let next = position + 1 < starts.count ? starts[position + 1] : Int.max
            let end = next == Int.max ? b : min(b, next - 1)
            let length = end - start + 1
            total += (length / 7) * mask.nonzeroBitCount
            let rest = start + (length / 7) * 7
            var weekday = CivilDate(day: rest).weekdayIndex
            for _ in 0..<(length % 7) {
                if mask & (1 << weekday) != 0 { total += 1 }
                weekday = weekday == 6 ? 0 : weekday + 1
            }
            start = end + 1
            position += 1
        }
        return total
    }
}
