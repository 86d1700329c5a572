import Core
import Store

/// An effect applied as of another time than its event's: the reward of a challenge that a
/// late event completed earlier in time order is granted at that earlier moment. It shows as
/// the effect it wraps.
public struct DatedEffect: FeatureEffect, Equatable {
    public var wrapped: Effect
    public var at: Double

    public var typeName: String { wrapped.typeName }
    public var label: String { wrapped.label }
    public var members: JSONObject {
        guard case .object(var members) = wrapped.json else { return [:] }
        members["type"] = nil
        return members
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        var dated = event
        dated.occurredAt = at
        dated.occurredAtText = Timestamp.format(at)
        try EffectApplier.apply([wrapped], of: dated, eventRow: eventRow, to: store)
    }
}

extension Effect {
    /// This effect as of `at`; itself when `at` is the event's own time.
    public func dated(_ at: Double, eventTime: Double) -> Effect {
        at == eventTime ? self : DatedEffect(wrapped: self, at: at).effect
    }
}
