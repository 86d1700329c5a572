/// Thrown by a consumer when an event only repeats a fact already stored under another
/// `event_id` (a habit check-in for a day already checked, say: a client's retry without an
/// `event_id` gets a fresh one). The event is answered `duplicate` with this code and message,
/// and nothing of it is stored or counted by any consumer.
public struct AlreadyRecorded: Error, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }
}
