import Core
import Engine
import Store

/// A change to the user's habit trackers, categories or check-ins.
public struct HabitChangedEffect: FeatureEffect, Equatable {
    public var change: HabitChange
    /// For a check or an uncheck: the tracker's streaks kept after it.
    public var streaks = KeptStreaks()

    public var typeName: String { "habit_changed" }
    public var label: String { "habit_changed(\(change.json["change"]?.stringValue ?? ""))" }
    public var members: JSONObject { change.json.objectValue ?? [:] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.applyHabitChange(change, user: event.userID, at: event.occurredAt, event: eventRow, streaks: streaks)
    }
}

extension Effect {
    static func habitChanged(_ change: HabitChange, keeping streaks: KeptStreaks = KeptStreaks()) -> Effect {
        HabitChangedEffect(change: change, streaks: streaks).effect
    }
}

extension HabitsFeature {
    public var effectTypes: [EffectType] { [EffectType("habit_changed", madeBy: "the habit trackers")] }
}

/// A check-in's facts made again: a late check-in of an earlier day lengthened its streak.
public struct HabitStreakRevision: Sendable, Equatable {
    /// The row and id of the check-in's event.
    public var eventRow: Int64
    public var eventID: String
    /// Its `habit_checked` facts with the streak as in time order.
    public var facts: JSONObject
}

/// Check-ins whose streak a late check-in of an earlier day lengthened: their `habit_checked`
/// analytics not yet sent say so, and other features' rules read the new facts (a challenge's
/// streak completion) from ``FactsRevision``.
public struct HabitStreaksRevisedEffect: FactsRevision, Equatable {
    public var trackerID: String
    public var revisions: [HabitStreakRevision]

    public var typeName: String { "habit_streaks_revised" }
    public var label: String { "habit_streaks_revised(\(trackerID))" }
    public var members: JSONObject {
        [
            "tracker_id": .string(trackerID),
            "check_ins": .array(
                revisions.map { revision in
                    var members: JSONObject = ["event_id": .string(revision.eventID)]
                    for (key, value) in revision.facts { members[key] = value }
                    return .object(members)
                }),
        ]
    }
    public var feature: String { "habits" }
    public var factsByEvent: [String: JSON] {
        Dictionary(revisions.map { ($0.eventID, .object($0.facts)) }) { a, _ in a }
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        for revision in revisions {
            _ = try store.run(
                "UPDATE analytics_outbox SET properties = ? WHERE event = ? AND name = 'habit_checked' AND sent_at IS NULL",
                [.text(JSON.object(revision.facts).compactText), .integer(revision.eventRow)])
        }
    }
}
