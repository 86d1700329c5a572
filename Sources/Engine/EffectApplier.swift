import Store

/// Writes effects to the store (inside the event's transaction).
enum EffectApplier {
    /// Applies `effects` of `event`, whose row is `eventRow`.
    static func apply(_ effects: [Effect], of event: Event, eventRow: Int64, to store: any Store) throws {
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
                try store.scheduleReminder(reminder, event: eventRow)
            case .analyticsEvent(let name, let properties):
                try store.appendAnalytics(
                    AnalyticsEvent(
                        userID: event.userID, name: name, occurredAt: event.occurredAt, properties: properties),
                    event: eventRow)
            case .feature(let effect):
                try effect.apply(to: store, event: event, eventRow: eventRow)
            }
        }
    }
}
