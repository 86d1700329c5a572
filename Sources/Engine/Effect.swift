import Core
import Store

/// What the engine decided because of an event. Consumers return effects; the ingest path
/// writes the event and all of its effects in one transaction.
///
/// The engine's own effects are cases here; a feature's effects are its own types
/// (``FeatureEffect``), carried as ``feature(_:)``.
public enum Effect: Sendable {
    /// A dog was registered (its profile is stored).
    case dogRegistered(DogProfile)
    /// A dated profile record was added.
    case recordAdded(ProfileRecord)
    /// XP or a badge.
    case rewardGranted(reward: String, amount: Double?, badgeID: String?, reason: String?)
    /// A reminder for the app's push sender.
    case reminderScheduled(Reminder)
    /// An event for the analytics outbox.
    case analyticsEvent(name: String, properties: JSONObject)
    /// An effect a feature defines.
    case feature(any FeatureEffect)

    /// The snake_case name used in JSON (`record_added`, …).
    public var typeName: String {
        switch self {
        case .dogRegistered: "dog_registered"
        case .recordAdded: "record_added"
        case .rewardGranted: "reward_granted"
        case .reminderScheduled: "reminder_scheduled"
        case .analyticsEvent: "analytics_event"
        case .feature(let effect): effect.typeName
        }
    }

    /// A short label for text output: `record_added(weight)`.
    public var label: String {
        switch self {
        case .dogRegistered(let dog): "dog_registered(\(dog.id))"
        case .recordAdded(let record): "record_added(\(record.kind))"
        case .rewardGranted(let reward, _, _, _): "reward_granted(\(reward))"
        case .reminderScheduled(let reminder): "reminder_scheduled(\(reminder.kind))"
        case .analyticsEvent(let name, _): "analytics_event(\(name))"
        case .feature(let effect): effect.label
        }
    }

    /// The feature effect of type `T`, if this is one.
    public func feature<T: FeatureEffect>(_ type: T.Type) -> T? {
        if case .feature(let effect) = self { return effect as? T }
        return nil
    }
}

extension Effect: Equatable {
    public static func == (lhs: Effect, rhs: Effect) -> Bool {
        switch (lhs, rhs) {
        case (.dogRegistered(let a), .dogRegistered(let b)): a == b
        case (.recordAdded(let a), .recordAdded(let b)): a == b
        case (.rewardGranted(let a1, let a2, let a3, let a4), .rewardGranted(let b1, let b2, let b3, let b4)):
            a1 == b1 && a2 == b2 && a3 == b3 && a4 == b4
        case (.reminderScheduled(let a), .reminderScheduled(let b)): a == b
        case (.analyticsEvent(let a1, let a2), .analyticsEvent(let b1, let b2)): a1 == b1 && a2 == b2
        case (.feature(let a), .feature(let b)): a.isEqual(to: b)
        default: false
        }
    }
}

/// An effect of a feature: its name, its JSON and how it is stored, all in the feature.
public protocol FeatureEffect: Sendable {
    /// The snake_case name used in JSON (`habit_changed`).
    var typeName: String { get }
    /// A short label for text output: `habit_changed(checked)`.
    var label: String { get }
    /// Its members in JSON, after `type`, in order.
    var members: JSONObject { get }
    /// Writes it to `store`, inside the transaction of `event` (whose row is `eventRow`).
    func apply(to store: any Store, event: Event, eventRow: Int64) throws
    /// Whether `other` is the same effect.
    func isEqual(to other: any FeatureEffect) -> Bool
}

extension FeatureEffect where Self: Equatable {
    public func isEqual(to other: any FeatureEffect) -> Bool { (other as? Self) == self }
}

extension FeatureEffect {
    /// The effect as an ``Effect``.
    public var effect: Effect { .feature(self) }
}
