import Core
import JQ
import RuleEngine

extension Event {
    static let fields = ["event_id", "user_id", "type", "occurred_at", "dog_id", "payload"]

    /// Validates a JSON event; every problem names its field.
    /// - Throws: ``Rejection`` with code `invalid`.
    public init(validating json: JSON, receivedAt: Double) throws(Rejection) {
        guard case .object(let object) = json else {
            throw Rejection(.invalid, "an event must be a JSON object, got \(json.typeName)")
        }
        for key in object.keys where !Self.fields.contains(key) {
            throw Rejection(
                .invalid,
                "unknown field `\(key)`; an event has \(Self.fields.map { "`\($0)`" }.joined(separator: ", ")) (put the event's own data in `payload`)"
            )
        }
        eventID = try Self.identifier(object, "event_id")
        userID = try Self.identifier(object, "user_id")
        let type = try Self.requiredString(object, "type")
        guard SnakeCaseName.isEventType(type) else {
            throw Rejection(
                .invalid, "`type` must be snake_case (a–z, 0–9, _; at most 64 characters), got \"\(type.prefix(80))\"")
        }
        self.type = type
        let occurred = try Self.requiredString(object, "occurred_at")
        guard let seconds = Timestamp.parse(occurred) else {
            throw Rejection(
                .invalid,
                "`occurred_at` must be an ISO 8601 date-time with an offset, e.g. 2026-11-29T18:20:00+01:00, got \"\(occurred.prefix(80))\""
            )
        }
        occurredAt = seconds
        occurredAtText = occurred
        switch object["dog_id"] {
        case nil, .null?: dogID = nil
        default: dogID = try Self.identifier(object, "dog_id")
        }
        switch object["payload"] {
        case nil, .null?: payload = [:]
        case .object(let fields)?: payload = fields
        case let other?: throw Rejection(.invalid, "`payload` must be an object, got \(other.typeName)")
        }
        self.receivedAt = receivedAt
    }

    private static func requiredString(_ object: JSONObject, _ field: String) throws(Rejection) -> String {
        guard let value = object[field] else { throw Rejection(.invalid, "missing `\(field)`") }
        guard case .string(let text) = value else {
            throw Rejection(.invalid, "`\(field)` must be a string, got \(value.typeName)")
        }
        return text
    }

    /// A string that is an id by the one rule (``Core/Identifier``).
    private static func identifier(_ object: JSONObject, _ field: String) throws(Rejection) -> String {
        let text = try requiredString(object, field)
        if let problem = Identifier.problem(text) { throw Rejection(.invalid, problem.message(field: field)) }
        return text
    }
}
