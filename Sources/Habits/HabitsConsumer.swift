import Core
import Engine
import JQ
import Store

/// Habit trackers in the ingest path: tracker and category changes and check-ins are events;
/// this consumer checks each against the user's trackers and decides the change.
///
/// Refusals name the field: a name of 1–38 characters, weekdays `mon`…`sun`, a category
/// that exists, no check-in for a date that has not begun for the user (the offset of
/// `occurred_at` decides the local date) or that is before the tracker was created. Deleting a
/// tracker deletes all of its data; deleting a category deletes its trackers too.
public struct HabitsConsumer: EventConsumer {
    public var name: String { "habits" }
    /// Habits read trackers, categories and check-ins, never reminders.
    public func readsReminders(for event: Event) -> Bool { false }

    public init() {}

    /// The event types this consumer handles.
    public static let eventTypes: Set<String> = [
        "tracker_created", "tracker_updated", "tracker_deleted", "category_created", "category_renamed",
        "category_deleted", "habit_checked", "habit_unchecked",
    ]

    /// The longest tracker or category name, in characters.
    public static let maxNameLength = 38

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        guard Self.eventTypes.contains(event.type) else { return [] }
        do {
            return try handle(event, in: context)
        } catch let error as FieldError {
            throw Rejection(error, event: event.type)
        }
    }

    /// A refusal of the payload's field `key`, worded as `` `payload.<key>` <problem> ``.
    static func rejection(_ key: String, _ code: FieldError.Code, _ problem: String) -> Rejection {
        Rejection(FieldError(code, at: JSONPointer.appending(key, to: "/payload"), problem))
    }

    /// The effects of an event this consumer handles; a field read wrongly throws its ``FieldError``.
    private func handle(_ event: Event, in context: ConsumerContext) throws -> [Effect] {
        var payload = FieldReader(event.payload, at: "/payload")
        let user = event.userID
        let today = CivilDate(localDateOf: event.occurredAtText) ?? CivilDate(utc: event.occurredAt)
        let effects: [Effect]
        switch event.type {
        case "tracker_created":
            effects = try trackerCreated(&payload, user: user, today: today, event: event, store: context.store)
        case "tracker_updated":
            effects = try trackerUpdated(&payload, user: user, today: today, store: context.store)
        case "tracker_deleted":
            let id = try payload.identifier("tracker_id")
            try payload.finish()
            let tracker = try existingTracker(id, user: user, store: context.store)
            effects = [
                .habitChanged(.trackerDeleted(trackerID: id)),
                .analyticsEvent(name: "tracker_deleted", properties: ["kind": .string(tracker.kind.rawValue)]),
            ]
        case "category_created":
            let id = try payload.identifier("category_id")
            let name = try Self.name(&payload)
            try payload.finish()
            let categories = try context.store.habitCategories(user: user)
            if categories.contains(where: { $0.id == id }) {
                throw Rejection(.conflict, "category `\(id)` already exists")
            }
            try Self.checkUnique(name, among: categories, except: nil)
            effects = [.habitChanged(.categoryCreated(HabitCategory(id: id, name: name)))]
        case "category_renamed":
            let id = try payload.identifier("category_id")
            let name = try Self.name(&payload)
            try payload.finish()
            let categories = try context.store.habitCategories(user: user)
            guard categories.contains(where: { $0.id == id }) else { throw Self.unknownCategory(id, categories) }
            try Self.checkUnique(name, among: categories, except: id)
            effects = [.habitChanged(.categoryRenamed(HabitCategory(id: id, name: name)))]
        case "category_deleted":
            let id = try payload.identifier("category_id")
            try payload.finish()
            let categories = try context.store.habitCategories(user: user)
            guard categories.contains(where: { $0.id == id }) else { throw Self.unknownCategory(id, categories) }
            // "All its data is deleted": the category and its name go; its trackers (data of
            // their own, with their history) stay, without a category, until the user picks one.
            effects = [.habitChanged(.categoryDeleted(categoryID: id))]
        default:  // habit_checked, habit_unchecked
            let id = try payload.identifier("tracker_id")
            let dateText = try payload.optionalString("date")
            try payload.finish()
            let date: CivilDate
            if let dateText {
                guard let parsed = CivilDate(dateText) else {
                    throw Self.rejection(
                        "date", .invalid, "must be a date written YYYY-MM-DD, got \"\(dateText.prefix(40))\"")
                }
                date = parsed
            } else {
                date = today
            }
            guard date <= today else {
                throw Rejection(
                    "future_date",
                    "\(date) has not begun for the user (it is \(today) where the event was sent); a future date cannot be checked",
                    field: FieldError(.outOfRange, at: "/payload/date", "\(date) has not begun for the user")
                )
            }
            effects = try checkin(event, tracker: id, date: date, user: user, context: context)
        }
        return effects
    }

    /// `habit_checked` or `habit_unchecked` of `trackerID` on `date` (not after the user's
    /// today): one check-in per tracker and date. Checking a day already checked (a retry under
    /// a fresh `event_id`) or unchecking one that is not is ``AlreadyRecorded``; checking a day
    /// again after unchecking it is kept, its facts saying `checked_before` so that challenges
    /// do not count it again. Dates before the tracker was created are refused. Reads one
    /// tracker and one day; the streak's days only when the tracker's kept streaks do not
    /// answer (``checkedStreak(_:on:of:counted:store:)``): never the tracker's whole history.
    private func checkin(
        _ event: Event, tracker id: String, date: CivilDate, user: String, context: ConsumerContext
    ) throws -> [Effect] {
        let store = context.store
        guard let tracker = try store.habitTracker(user: user, id: id) else {
            throw Rejection(
                "unknown_tracker", "the user has no tracker `\(id)`",
                field: FieldError(.unknown, at: "/payload/tracker_id", "the user has no tracker `\(id)`"))
        }
        if let created = CivilDate(tracker.createdOn), date < created {
            throw Rejection(
                "before_tracker_created",
                "\(date) is before tracker `\(id)` was created (\(created)); check-ins start on the day it was created",
                field: FieldError(.outOfRange, at: "/payload/date", "\(date) is before the tracker was created")
            )
        }
        let checkin = HabitCheckin(trackerID: id, date: date.description)
        let counted = StreakDays(tracker)
        let state = try store.habitCheckinState(user: user, tracker: id, date: checkin.date)
        guard event.type == "habit_checked" else {
            if state == .never {
                // The check-in it takes back may not have arrived yet: refused, so that the
                // phone sends it again (in time order it takes that check-in back).
                throw Rejection("not_checked", "tracker `\(id)` is not checked on \(date): nothing to uncheck")
            }
            guard state == .checked,
                let checkedAt = try store.habitCheckedAt(user: user, tracker: id, date: checkin.date),
                checkedAt <= event.occurredAt
            else {
                // Unchecked already, or checked only after this (that check-in arrived first).
                throw AlreadyRecorded("not_checked", "tracker `\(id)` is not checked on \(date): nothing to uncheck")
            }
            return [.habitChanged(.unchecked(checkin), keeping: tracker.keptStreaks.unchecking(date, counted: counted))]
        }
        if state == .checked {
            throw AlreadyRecorded("already_checked", "tracker `\(id)` is already checked on \(date); it counts once")
        }
        let (streak, kept, lengthensLater) = try Self.checkedStreak(
            event, on: date, of: tracker, counted: counted, store: store)
        var facts: JSONObject = [
            "tracker_id": .string(id), "kind": .string(tracker.kind.rawValue), "date": .string(checkin.date),
            "streak_days": .number(Double(streak)),
        ]
        // Checked, unchecked, and checked again: challenges counted the day the first time.
        if state == .uncheckedAgain { facts["checked_before"] = true }
        let revised =
            lengthensLater
            ? try Self.streaksLengthened(by: date, at: event.occurredAt, of: tracker, user: user, store: store) : []
        return [
            .habitChanged(.checked(checkin), keeping: kept),
            // Facts other rules read (a challenge's streak metric): the analytics event
            // carries the tracker's streak ending on the checked date.
            .analyticsEvent(name: "habit_checked", properties: facts),
        ] + (revised.isEmpty ? [] : [HabitStreaksRevisedEffect(trackerID: id, revisions: revised).effect])
    }

    /// The streak a check-in of `date` reports (as of its time), what its tracker keeps once it
    /// is checked, and whether it may lengthen the streaks of check-ins after it. The kept
    /// streaks answer a check-in made after every change of the tracker's check-ins; others
    /// read the streak back, and a check-in of the latest day done keeps what it read.
    static func checkedStreak(
        _ event: Event, on date: CivilDate, of tracker: HabitTracker, counted: StreakDays, store: any StoreReader
    ) throws -> (streak: Int, kept: KeptStreaks, lengthensLater: Bool) {
        let user = event.userID
        /// Read back as of the check-in's time, up to `limit` days.
        func readBack(limit: Int = HabitStreak.limit) throws -> Int {
            try streak(on: date, of: tracker, user: user, asOf: event.occurredAt, limit: limit, store: store)
        }
        // Made after every check and uncheck the tracker has: as of its time, the check-ins are
        // those the store has now.
        let inTimeOrder = tracker.checkinsChangedAt.map { event.occurredAt >= $0 } ?? true
        if let known = tracker.keptStreaks.checking(date, counted: counted) {
            // In time order, every day done after it does not count: no later streak changes.
            return inTimeOrder ? (known.streak, known.kept, false) : (try readBack(), known.kept, true)
        }
        if inTimeOrder, counted.counts(date.day),
            try !store.habitIsChecked(user: user, tracker: tracker.id, after: date.description)
        {
            // The latest day done: read once (a day further, for the day before), kept from now on.
            let reach = try readBack(limit: HabitStreak.limit + 1)
            return (min(reach, HabitStreak.limit), KeptStreaks.read(date, reach: reach, counted: counted), true)
        }
        return (try readBack(), KeptStreaks(), true)
    }

    /// The tracker's streak ending on `day` as it was at `time`, in time order (the check-ins
    /// made by then), `including` a day checked that is not stored yet.
    static func streak(
        on day: CivilDate, of tracker: HabitTracker, user: String, asOf time: Double, including extra: CivilDate? = nil,
        limit: Int = HabitStreak.limit, store: any StoreReader
    ) throws -> Int {
        try HabitStreak.ending(on: day, of: tracker, limit: limit) { before, limit in
            var dates = try store.habitCheckinDates(
                user: user, tracker: tracker.id, before: before.description, asOf: time, limit: limit
            ).compactMap { CivilDate($0) }
            if let extra, extra < before, !dates.contains(extra) {
                dates.append(extra)
                dates.sort { $1 < $0 }
                if dates.count > limit { dates.removeLast() }
            }
            return dates
        }
    }

    /// A check-in of `day` made at `time` that arrived after check-ins made later for later
    /// days: the streaks it lengthens (in time order they counted it), for the facts kept.
    /// Reads at most a year of days after `day`; nothing when events arrive in time order.
    static func streaksLengthened(
        by day: CivilDate, at time: Double, of tracker: HabitTracker, user: String, store: any StoreReader
    ) throws -> [HabitStreakRevision] {
        let later = try store.habitCheckinsAfter(
            user: user, tracker: tracker.id, date: day.description,
            through: day.adding(days: HabitStreak.limit).description, from: time)
        var revisions: [HabitStreakRevision] = []
        for checkin in later {
            guard let date = CivilDate(checkin.date), var facts = checkin.facts else { continue }
            let streak = try streak(
                on: date, of: tracker, user: user, asOf: checkin.checkedAt, including: day, store: store)
            guard facts["streak_days"]?.numberValue != Double(streak) else { continue }
            facts["streak_days"] = .number(Double(streak))
            revisions.append(HabitStreakRevision(eventRow: checkin.eventRow, eventID: checkin.eventID, facts: facts))
        }
        return revisions
    }

    private func trackerCreated(
        _ payload: inout FieldReader, user: String, today: CivilDate, event: Event, store: any StoreReader
    ) throws -> [Effect] {
        let id = try payload.identifier("tracker_id")
        let name = try Self.name(&payload)
        let kindText = try payload.optionalString("kind") ?? "habit"
        guard let kind = HabitTracker.Kind(rawValue: kindText) else {
            throw Self.rejection("kind", .invalid, "must be habit or irregular, got \"\(kindText.prefix(40))\"")
        }
        let schedule = try payload.optionalStrings("schedule")
        let givenCategory = try payload.optionalString("category")
        let givenEmoji = try Self.emoji(&payload)
        let givenColor = try Self.color(&payload)
        let pinned = try payload.optionalBool("pinned") ?? false
        try payload.finish()
        var schedules: [HabitSchedule] = []
        switch (kind, schedule) {
        case (.habit, nil):
            throw Self.rejection(
                "schedule", .missing,
                "is required for a habit: the weekdays it repeats on, e.g. [\"mon\", \"wed\", \"fri\"]")
        case (.habit, let days?):
            schedules = [HabitSchedule(fromDate: today.description, days: try Self.weekdays(days))]
        case (.irregular, let days?) where !days.isEmpty:
            throw Self.rejection("schedule", .invalid, "does not apply to an irregular event (it has no schedule)")
        case (.irregular, _):
            break
        }
        // "Create" is enabled only once every section is filled: the schedule (above), the
        // category, the emoji and the colour.
        let (category, emoji, color) = try Self.requireSections(givenCategory, givenEmoji, givenColor, kind: kind)
        let trackers = try store.habitTrackers(user: user)
        if trackers.contains(where: { $0.id == id }) { throw Rejection(.conflict, "tracker `\(id)` already exists") }
        let categories = try store.habitCategories(user: user)
        guard categories.contains(where: { $0.id == category }) else {
            throw Self.unknownCategory(category, categories)
        }
        let tracker = HabitTracker(
            id: id, name: name, kind: kind, categoryID: category, emoji: emoji, color: color, pinned: pinned,
            createdOn: today.description, createdAt: event.occurredAt, schedules: schedules)
        return [
            .habitChanged(.trackerCreated(tracker)),
            .analyticsEvent(
                name: "tracker_created",
                properties: [
                    "kind": .string(kind.rawValue), "days": .number(Double(schedules.first?.days.count ?? 0)),
                    "category": .string(category),
                ]),
        ]
    }

    /// Every section of the creation form, or a refusal naming the first one missing.
    static func requireSections(_ category: String?, _ emoji: String?, _ color: String?, kind: HabitTracker.Kind)
        throws -> (String, String, String)
    {
        let sections =
            "\(kind == .habit ? "a habit" : "an irregular event") is created with every section filled: `category`, `emoji` and `color`\(kind == .habit ? " (and `schedule`)" : "")"
        guard let category else {
            throw Self.rejection("category", .missing, "is required for tracker_created: \(sections)")
        }
        guard let emoji else {
            throw Self.rejection("emoji", .missing, "is required for tracker_created: \(sections)")
        }
        guard let color else {
            throw Self.rejection("color", .missing, "is required for tracker_created: \(sections)")
        }
        return (category, emoji, color)
    }

    private func trackerUpdated(
        _ payload: inout FieldReader, user: String, today: CivilDate, store: any StoreReader
    ) throws -> [Effect] {
        let id = try payload.identifier("tracker_id")
        let name = payload.has("name") ? try Self.name(&payload) : nil
        let categoryGiven = payload.has("category")
        let category = try payload.optionalString("category")
        let emojiGiven = payload.has("emoji")
        let emoji = try Self.emoji(&payload)
        let colorGiven = payload.has("color")
        let color = try Self.color(&payload)
        let pinned = try payload.optionalBool("pinned")
        let schedule = try payload.optionalStrings("schedule")
        if payload.has("kind") {
            _ = try payload.optionalString("kind")
            throw Self.rejection("kind", .invalid, "cannot change: create a new tracker instead")
        }
        try payload.finish()
        for (field, given, value) in [
            ("category", categoryGiven, category), ("emoji", emojiGiven, emoji), ("color", colorGiven, color),
        ] where given && value == nil {
            throw Rejection(
                .invalid, "`payload.\(field)` cannot be removed: a tracker keeps every section; choose another")
        }
        let tracker = try existingTracker(id, user: user, store: store)
        if let category {
            let categories = try store.habitCategories(user: user)
            guard categories.contains(where: { $0.id == category }) else {
                throw Self.unknownCategory(category, categories)
            }
        }
        var effects: [Effect] = []
        if name != nil || categoryGiven || emojiGiven || colorGiven || pinned != nil {
            effects.append(
                .habitChanged(
                    .trackerUpdated(
                        trackerID: id, name: name, categoryID: categoryGiven ? .some(category) : nil,
                        emoji: emojiGiven ? .some(emoji) : nil, color: colorGiven ? .some(color) : nil, pinned: pinned))
            )
        }
        if let schedule {
            guard tracker.kind == .habit else {
                throw Self.rejection("schedule", .invalid, "does not apply to an irregular event (it has no schedule)")
            }
            let days = try Self.weekdays(schedule)
            // From today on: the days before keep the schedule they had.
            if tracker.schedule(on: today.description)?.days != days {
                effects.append(
                    .habitChanged(
                        .scheduleChanged(
                            trackerID: id, schedule: HabitSchedule(fromDate: today.description, days: days))))
            }
        }
        return effects
    }

    private func existingTracker(_ id: String, user: String, store: any StoreReader) throws -> HabitTracker {
        let trackers = try store.habitTrackers(user: user)
        guard let tracker = trackers.first(where: { $0.id == id }) else {
            throw Rejection("unknown_tracker", "the user has no tracker `\(id)`")
        }
        return tracker
    }

    static func name(_ payload: inout FieldReader) throws -> String {
        let name = try payload.string("name")
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty else { throw Self.rejection("name", .invalid, "must not be empty") }
        guard trimmed.count <= maxNameLength else {
            throw Self.rejection("name", .tooLong, "is \(trimmed.count) characters long; at most \(maxNameLength) fit")
        }
        return trimmed
    }

    static func emoji(_ payload: inout FieldReader) throws -> String? {
        guard let emoji = try payload.optionalString("emoji") else { return nil }
        guard emoji.count == 1 else {
            throw Self.rejection("emoji", .invalid, "must be one emoji, got \(emoji.count) characters")
        }
        return emoji
    }

    static func color(_ payload: inout FieldReader) throws -> String? {
        guard let color = try payload.optionalString("color") else { return nil }
        let hex = color.utf8.dropFirst()
        guard color.utf8.first == UInt8(ascii: "#"), hex.count == 6,
            hex.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) })
        else {
            throw Self.rejection("color", .invalid, "must be a colour written #RRGGBB, got \"\(color.prefix(20))\"")
        }
        return color.uppercased()
    }

    /// Weekday names, checked, without repeats, in week order.
    static func weekdays(_ names: [String]) throws -> [String] {
        guard !names.isEmpty else {
            throw Self.rejection(
                "schedule", .invalid, "must name at least one weekday (mon, tue, wed, thu, fri, sat, sun)")
        }
        for name in names where !CivilDate.weekdays.contains(name) {
            throw Self.rejection(
                "schedule", .invalid, "has \"\(name.prefix(20))\"; weekdays are mon, tue, wed, thu, fri, sat, sun")
        }
        return CivilDate.weekdays.filter(names.contains)
    }

    static func checkUnique(_ name: String, among categories: [HabitCategory], except id: String?) throws {
        if let other = categories.first(where: { $0.id != id && $0.name.lowercased() == name.lowercased() }) {
            throw Rejection(.conflict, "a category named `\(other.name)` already exists (`\(other.id)`)")
        }
    }

    static func unknownCategory(_ id: String, _ categories: [HabitCategory]) -> Rejection {
        let known = categories.map(\.id)
        return Rejection(
            "unknown_category",
            "the user has no category `\(id)`\(known.isEmpty ? "; create it first (category_created)" : "; categories: \(known.joined(separator: ", "))")"
        )
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        let isSpace = { (scalar: Unicode.Scalar) in " \t\n\r".unicodeScalars.contains(scalar) }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
