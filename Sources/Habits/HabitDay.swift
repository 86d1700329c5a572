import Core
import FeatureKit
import JQ
import Store

/// One day of a user's trackers: which are scheduled (habits by weekday, irregular events
/// every day, from the day each was created), which are done, filtered and searched as the
/// app's day screen does.
public enum HabitDay {
    /// The day screen's filters, as the habit document names them.
    public enum Filter: String, Sendable, CaseIterable {
        /// "All trackers": every tracker of the selected day (scheduled that day).
        case all
        /// "Trackers for today": sets the user's current date, then every tracker of that day.
        case today
        /// "Completed": done on the selected day.
        case completed
        /// "Not completed": scheduled on the selected day and not done.
        case notCompleted = "not_completed"
    }

    /// The date `filter` shows: `today` sets the user's current date; the others show the
    /// selected date (without one, today).
    public static func date(for filter: Filter, selected: CivilDate?, today: CivilDate) -> CivilDate {
        filter == .today ? today : selected ?? today
    }

    /// `{date, weekday, filter, filters_available, trackers: [{id, name, kind, category, emoji,
    /// color, pinned, schedule, schedule_text, scheduled, done, tracked_days,
    /// tracked_days_text}], groups: [{pinned, category, title, trackers}], title, filters,
    /// locale}`, pinned trackers first; `tracked_days` counts the days the tracker was checked,
    /// up to and including `date`; `filters_available` is false when no tracker is scheduled
    /// that day (the app hides its Filter button). `date` is the one to show (see
    /// ``date(for:selected:today:)``). Texts are in `texts`' locale: «Трекеры», «Каждый день»,
    /// «Закрепленные», «5 дней».
    public static func json(
        user: String, date: CivilDate, filter: Filter = .all, search: String? = nil, store: any StoreReader,
        texts: RequestTexts
    ) throws -> JSON {
        let text = date.description
        let trackers = try store.habitTrackers(user: user)
        let checkins = try store.habitCheckins(user: user)
        let done = Set(checkins.filter { $0.date == text }.map(\.trackerID))
        let trackedDays = trackedDays(checkins, through: text)
        let categories = Dictionary(
            try store.habitCategories(user: user).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let needle = search?.lowercased().trimmingSpaces ?? ""
        var rows: [(pinned: Bool, json: JSON)] = []
        var anyScheduled = false
        for tracker in trackers {
            let schedule = tracker.schedule(on: text)
            // A tracker is on the days from the one it was created (check-ins start there too).
            let exists = CivilDate(tracker.createdOn).map { $0 <= date } ?? true
            let scheduled: Bool =
                switch tracker.kind {
                case .irregular: exists
                case .habit: exists && schedule?.days.contains(date.weekday) == true
                }
            anyScheduled = anyScheduled || scheduled
            let isDone = done.contains(tracker.id)
            let keep: Bool =
                switch filter {
                case .all, .today: scheduled
                case .completed: isDone
                case .notCompleted: scheduled && !isDone
                }
            guard keep, needle.isEmpty || tracker.name.lowercased().contains(needle) else { continue }
            rows.append(
                (
                    tracker.pinned,
                    .object([
                        "id": .string(tracker.id), "name": .string(tracker.name),
                        "kind": .string(tracker.kind.rawValue),
                        "category_id": tracker.categoryID.map(JSON.string) ?? .null,
                        "category_name": tracker.categoryID.map { .string(categories[$0] ?? $0) } ?? .null,
                        "emoji": tracker.emoji.map(JSON.string) ?? .null,
                        "color": tracker.color.map(JSON.string) ?? .null, "pinned": .bool(tracker.pinned),
                        "schedule": .array((schedule?.days ?? []).map(JSON.string)),
                        "schedule_text": .string(scheduleText(tracker, on: text, texts: texts)),
                        "scheduled": .bool(scheduled), "done": .bool(isDone),
                        "tracked_days": .number(Double(trackedDays[tracker.id] ?? 0)),
                        "tracked_days_text": .string(
                            texts(Keys.trackedDays, ["count": .number(Double(trackedDays[tracker.id] ?? 0))])),
                    ])
                ))
        }
        let ordered = rows.filter(\.pinned) + rows.filter { !$0.pinned }
        // The screen's sections: the pinned first, then a section per category (by name), then
        // the trackers without one; each keeps the order above.
        var sections: [(key: String, category: JSON, trackers: [JSON])] = []
        func add(_ key: String, _ tracker: JSON) {
            if let index = sections.firstIndex(where: { $0.key == key }) {
                sections[index].trackers.append(tracker)
            } else {
                sections.append((key, key == "pinned" ? .null : tracker, [tracker]))
            }
        }
        for row in ordered where row.pinned { add("pinned", row.json) }
        let categorized = ordered.filter { !$0.pinned && $0.json["category_name"]?.stringValue != nil }
            .sorted { ($0.json["category_name"]?.stringValue ?? "") < ($1.json["category_name"]?.stringValue ?? "") }
        for row in categorized {
            add("category:" + (row.json["category_id"]?.stringValue ?? ""), row.json)
        }
        for row in ordered where !row.pinned && row.json["category_name"]?.stringValue == nil {
            add("none", row.json)
        }
        return .object([
            "user_id": .string(user), "date": .string(text), "weekday": .string(date.weekday),
            "title": .string(texts(Keys.title)), "locale": .string(texts.locale),
            "filters": .array(
                Filter.allCases.map { .object(["id": .string($0.rawValue), "title": .string(texts(Keys.filter($0)))]) }),
            "filter": .string(filter.rawValue), "filters_available": .bool(anyScheduled),
            "search": search.map(JSON.string) ?? .null,
            "trackers": .array(ordered.map(\.json)),
            "groups": .array(
                sections.map { section in
                    [
                        "pinned": .bool(section.key == "pinned"),
                        "category_id": section.category["category_id"] ?? .null,
                        "category_name": section.category["category_name"] ?? .null,
                        "title": section.key == "pinned"
                            ? .string(texts(Keys.pinned)) : section.category["category_name"] ?? .null,
                        "tracker_ids": .array(section.trackers.map { $0["id"] ?? .null }),
                    ]
                }),
        ])
    }

    /// By tracker, the days it was checked on or before `date` (one check-in row per tracker
    /// and day; `YYYY-MM-DD` sorts as dates do). Through nil: every day.
    public static func trackedDays(_ checkins: [HabitCheckin], through date: String? = nil) -> [String: Int] {
        var days: [String: Int] = [:]
        for checkin in checkins where date.map({ checkin.date <= $0 }) ?? true {
            days[checkin.trackerID, default: 0] += 1
        }
        return days
    }

    /// «Каждый день» / "Every day", the short weekday names from ICU («Пн, Ср, Пт» / "Mon, Wed,
    /// Fri"), or «Нерегулярное событие» / "Irregular", in `texts`' locale.
    public static func scheduleText(_ tracker: HabitTracker, on date: String, texts: RequestTexts) -> String {
        guard tracker.kind == .habit, let days = tracker.schedule(on: date)?.days else {
            return texts(Keys.irregular)
        }
        if days.count == 7 { return texts(Keys.everyDay) }
        let rules = texts.rules
        return days.compactMap { day in
            CivilDate.weekdays.firstIndex(of: day).map { index in
                let name = rules.weekdayName(index + 1, wide: false)
                return name.prefix(1).uppercased() + name.dropFirst()
            }
        }.joined(separator: ", ")
    }

    /// The locale keys the day screen renders.
    public enum Keys {
        public static let title = "habits.trackers.title"
        public static let pinned = "habits.group.pinned"
        public static let everyDay = "habits.schedule.every_day"
        public static let irregular = "habits.schedule.irregular"
        public static let trackedDays = "habits.tracked_days"
        /// The filter's title: «Все трекеры», «Трекеры на сегодня», «Завершенные», «Не завершенные».
        public static func filter(_ filter: Filter) -> String { "habits.filter." + filter.rawValue }

        /// Every key, with what renders it.
        public static var uses: [TextUse] {
            let day = "GET /v1/users/{user_id}/habits/day"
            let trackers = "GET /v1/users/{user_id}/habits/trackers"
            return [
                TextUse(title, usedBy: day + " (title)"), TextUse(pinned, usedBy: day + " (groups[].title)"),
                TextUse(everyDay, usedBy: "\(day), \(trackers) (schedule_text)"),
                TextUse(irregular, usedBy: "\(day), \(trackers) (schedule_text)"),
                TextUse(trackedDays, usedBy: day + " (tracked_days_text)"),
            ] + Filter.allCases.map { TextUse(filter($0), usedBy: day + " (filters[].title)") }
        }
    }
}
