import Core
import Engine
import Store

/// A change to the user's habit trackers, categories or check-ins.
public struct HabitChangedEffect: FeatureEffect, Equatable {
    public var change: HabitChange

    public var typeName: String { "habit_changed" }
    public var label: String { "habit_changed(\(change.json["change"]?.stringValue ?? ""))" }
    public var members: JSONObject { change.json.objectValue ?? [:] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.applyHabitChange(change, user: event.userID, at: event.occurredAt, event: eventRow)
    }
}

extension Effect {
    static func habitChanged(_ change: HabitChange) -> Effect { HabitChangedEffect(change: change).effect }
}

extension HabitsFeature {
    public var effectTypes: [EffectType] { [EffectType("habit_changed", madeBy: "the habit trackers")] }
}
