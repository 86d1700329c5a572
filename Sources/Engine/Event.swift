import Core
import JQ
import RuleEngine

/// Something that happened in the app, validated: who, what, when (as the client sent it)
/// and the event's own fields.
public struct Event: Sendable, Equatable {
    public var eventID: String
    public var userID: String
    public var type: String
    /// When it happened, seconds since 1970; effects are computed at this time.
    public var occurredAt: Double
    /// `occurred_at` as sent, with its offset.
    public var occurredAtText: String
    public var dogID: String?
    public var payload: JSONObject
    /// When the engine received it.
    public var receivedAt: Double

    /// The event as rules see it, built straight into a libjq value.
    public var ruleValue: JV {
        var value = JVObjectBuilder()
        value.set("event_id", string: eventID)
        value.set("user_id", string: userID)
        value.set("type", string: type)
        value.set("occurred_at", string: occurredAtText)
        value.set("dog_id", string: dogID)
        value.set("payload", json: .object(payload))
        return value.build()
    }

    /// The event as rules see it: `{event_id, user_id, type, occurred_at, dog_id, payload}`.
    public var json: JSON {
        var object: JSONObject = [
            "event_id": .string(eventID), "user_id": .string(userID), "type": .string(type),
            "occurred_at": .string(occurredAtText),
        ]
        object["dog_id"] = dogID.map(JSON.string) ?? .null
        object["payload"] = .object(payload)
        return .object(object)
    }
}

/// Why an event was refused: a stable code and a message naming the field or the limit.
public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        /// A missing field, a wrong type, a value out of range.
        public static let invalid: Code = "invalid"
        /// Older than the late window.
        public static let tooLate: Code = "too_late"
        /// Later than the clock-skew allowance.
        public static let inFuture: Code = "in_future"
        /// A `dog_id` that is not one of the user's dogs.
        public static let unknownDog: Code = "unknown_dog"
        /// The event contradicts what is stored (a dog registered by another user).
        public static let conflict: Code = "conflict"
        /// A consumer failed (a rule error, a bug); nothing of the event was applied.
        public static let consumerFailed: Code = "consumer_failed"
        /// The store could not keep the event; nothing of it was applied.
        public static let storageError: Code = "storage_error"
    }

    public var code: Code
    public var message: String
    /// The field at fault, when one is (its path in the event: `/payload/kg`).
    public var field: FieldError?

    public init(_ code: Code, _ message: String, field: FieldError? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// An event's field that is not right: `invalid`, with the field's problem as the message
    /// (`` `payload.kg` must be a number, got string ``).
    public init(_ error: FieldError) {
        self.init(.invalid, error.description, field: error)
    }

    /// A field of a `type` event that is not right, as the ingest path words it: `invalid`,
    /// ``tracker_created needs `payload.tracker_id` ``, ``unknown field `payload.colour` for
    /// tracker_created; fields: tracker_id, name``, else the field's problem.
    public init(_ error: FieldError, event type: String) {
        switch error.code {
        case .missing: self.init(.invalid, "\(type) needs `\(error.field)`", field: error)
        case .unknown:
            self.init(
                .invalid, "unknown field `\(error.field)` for \(type); fields: \(error.known.joined(separator: ", "))",
                field: error)
        default: self.init(error)
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension Event {
    /// Whose input the event's rules evaluate, as the views key it: its dog, else its user. A
    /// rule that runs away on it is quarantined for that key only.
    public var quarantineKey: String { dogID.map { "dog:" + $0 } ?? "user:" + userID }
}
