import Core

/// A habit tracker: a habit repeats on chosen weekdays; an irregular event has no schedule.
public struct HabitTracker: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case habit, irregular
    }

    public var id: String
    public var name: String
    public var kind: Kind
    public var categoryID: String?
    public var emoji: String?
    public var color: String?
    public var pinned: Bool
    /// The local date it was created (`YYYY-MM-DD`).
    public var createdOn: String
    public var createdAt: Double
    /// The schedules in force, oldest first: a habit's weekdays from a local date on. A
    /// schedule change adds one; history is never rewritten.
    public var schedules: [HabitSchedule]
    /// When its check-ins last changed (a check or an uncheck, by its `occurred_at`); nil
    /// before the first.
    public var checkinsChangedAt: Double?
    /// Its latest streak as the store keeps it (see ``KeptStreaks``).
    public var keptStreaks = KeptStreaks()

    public init(
        id: String, name: String, kind: Kind, categoryID: String? = nil, emoji: String? = nil, color: String? = nil,
        pinned: Bool = false, createdOn: String, createdAt: Double, schedules: [HabitSchedule] = []
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.categoryID = categoryID
        self.emoji = emoji
        self.color = color
        self.pinned = pinned
        self.createdOn = createdOn
        self.createdAt = createdAt
        self.schedules = schedules
    }

    /// The schedule in force on `date` (the first one for dates before it); nil for irregular.
    public func schedule(on date: String) -> HabitSchedule? {
        guard kind == .habit, let first = schedules.first else { return nil }
        return schedules.last { $0.fromDate <= date } ?? first
    }
}

/// A habit's weekdays (`mon`…`sun`) from a local date on.
public struct HabitSchedule: Sendable, Equatable {
    public var fromDate: String
    public var days: [String]

    public init(fromDate: String, days: [String]) {
        self.fromDate = fromDate
        self.days = days
    }
}

public struct HabitCategory: Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A tracker marked done on a local date.
public struct HabitCheckin: Sendable, Equatable {
    public var trackerID: String
    /// `YYYY-MM-DD`, in the user's time zone.
    public var date: String

    public init(trackerID: String, date: String) {
        self.trackerID = trackerID
        self.date = date
    }
}

/// A change to a user's trackers, categories or check-ins, as the habits consumer decides it.
public enum HabitChange: Sendable, Equatable {
    case trackerCreated(HabitTracker)
    /// New values for the fields given (nil: unchanged); `pinned` likewise.
    case trackerUpdated(
        trackerID: String, name: String?, categoryID: String??, emoji: String??, color: String??, pinned: Bool?)
    /// A new schedule from `schedule.fromDate` on (replacing one that starts the same day).
    case scheduleChanged(trackerID: String, schedule: HabitSchedule)
    /// The tracker and all of its data go.
    case trackerDeleted(trackerID: String)
    case categoryCreated(HabitCategory)
    case categoryRenamed(HabitCategory)
    case categoryDeleted(categoryID: String)
    case checked(HabitCheckin)
    case unchecked(HabitCheckin)

    /// The change as JSON (in effects and stored outcomes).
    public var json: JSON {
        switch self {
        case .trackerCreated(let tracker):
            return [
                "change": "tracker_created", "tracker_id": .string(tracker.id), "name": .string(tracker.name),
                "kind": .string(tracker.kind.rawValue),
            ]
        case .trackerUpdated(let id, let name, let category, let emoji, let color, let pinned):
            var object: JSONObject = ["change": "tracker_updated", "tracker_id": .string(id)]
            if let name { object["name"] = .string(name) }
            if let category { object["category_id"] = category.map(JSON.string) ?? .null }
            if let emoji { object["emoji"] = emoji.map(JSON.string) ?? .null }
            if let color { object["color"] = color.map(JSON.string) ?? .null }
            if let pinned { object["pinned"] = .bool(pinned) }
            return .object(object)
        case .scheduleChanged(let id, let schedule):
            return [
                "change": "schedule_changed", "tracker_id": .string(id), "from_date": .string(schedule.fromDate),
                "days": .array(schedule.days.map(JSON.string)),
            ]
        case .trackerDeleted(let id):
            return ["change": "tracker_deleted", "tracker_id": .string(id)]
        case .categoryCreated(let category):
            return ["change": "category_created", "category_id": .string(category.id), "name": .string(category.name)]
        case .categoryRenamed(let category):
            return ["change": "category_renamed", "category_id": .string(category.id), "name": .string(category.name)]
        case .categoryDeleted(let id):
            return ["change": "category_deleted", "category_id": .string(id)]
        case .checked(let checkin):
            return ["change": "checked", "tracker_id": .string(checkin.trackerID), "date": .string(checkin.date)]
        case .unchecked(let checkin):
            return ["change": "unchecked", "tracker_id": .string(checkin.trackerID), "date": .string(checkin.date)]
        }
    }
}
