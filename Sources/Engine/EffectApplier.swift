import Store

/// Writes effects to the store (inside the event's transaction).
enum EffectApplier {
    /// Applies `effects` of `event`, whose row is `eventRow`, now.
    static func apply(_ effects: [Effect], of event: Event, eventRow: Int64, to store: any Store) throws {
        var reminders = ReminderMerges()
        try apply(effects, of: event, eventRow: eventRow, to: store, reminders: &reminders)
        try reminders.flush(to: store)
    }

    /// Applies `effects` of `event`, whose row is `eventRow`, holding the reminders it schedules
    /// in `reminders`; a feature's effect, which may read or change reminders, sees those held.
    static func apply(
        _ effects: [Effect], of event: Event, eventRow: Int64, to store: any Store, reminders: inout ReminderMerges
    ) throws {
        for effect in effects {
            switch effect {
            case .dogRegistered(let dog):
                try store.insertDog(dog)
            case .recordAdded(let record):
                try store.insertRecord(record, event: eventRow)
            case .rewardGranted(let reward, let amount, let badge, let reason):
                try store.grantReward(
                    Reward(
                        reward: reward, userID: event.userID, amount: amount, badgeID: badge, reason: reason,
                        grantedAt: event.occurredAt), event: eventRow)
            case .reminderScheduled(let reminder):
                try reminders.add(reminder, event: eventRow, to: store)
            case .analyticsEvent(let name, let properties):
                try store.appendAnalytics(
                    AnalyticsEvent(
                        userID: event.userID, name: name, occurredAt: event.occurredAt, properties: properties),
                    event: eventRow)
            case .feature(let effect):
                try reminders.flush(to: store)
                try effect.apply(to: store, event: event, eventRow: eventRow)
            }
        }
    }
}
