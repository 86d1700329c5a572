import Core
import JQ

/// What happened to one event of a batch.
public struct IngestResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Stored, with its effects applied.
        case accepted
        /// Seen before: the original result is returned, nothing new applied.
        case duplicate
        /// Refused, with a code and message; nothing of it applied.
        case rejected
    }

    public var status: Status
    /// The event's id and user, when the event had readable ones.
    public var eventID: String?
    public var userID: String?
    public var type: String?
    public var code: String?
    public var message: String?
    /// The effects as JSON: new ones when accepted, the original ones when a duplicate.
    public var effects: [JSON]
    /// A rejection's field at fault, when it has one (its path in the event). Not part of
    /// ``json``: a route that built the event from its body names the body's field instead.
    public var field: FieldError? = nil

    /// The result as one JSON object (`journey ingest --format json`, the HTTP API).
    public var json: JSON {
        var object: JSONObject = [
            "event_id": eventID.map(JSON.string) ?? .null, "user_id": userID.map(JSON.string) ?? .null,
            "status": .string(status.rawValue),
        ]
        if let code { object["code"] = .string(code) }
        if let message { object["message"] = .string(message) }
        object["effects"] = .array(effects)
        return .object(object)
    }

    static func rejected(_ rejection: Rejection, eventID: String?, userID: String?, type: String?) -> IngestResult {
        IngestResult(
            status: .rejected, eventID: eventID, userID: userID, type: type, code: rejection.code.rawValue,
            message: rejection.message, effects: [], field: rejection.field)
    }
}
