/// The one rule for ids: what the clients send (`event_id`, `user_id`, `dog_id`, payload ids
/// such as `tracker_id`, ids in request bodies and route paths) and what rule files name
/// (challenges, experiments, flows and steps, catalogs, branches and blocks).
///
/// An id is 1 to ``maximumBytes`` bytes of UTF-8 without control characters (Unicode's `Cc`:
/// U+0000–U+001F, U+007F and U+0080–U+009F). Anything else is allowed: `q-123`, an email, a
/// UUID, `Grüße 🐶`. Bytes, not characters, bound the length: that is what storage and
/// fixed-size slots hold.
public enum Identifier {
    /// The longest id, in UTF-8 bytes.
    public static let maximumBytes = 128

    /// Why a text is not an id.
    public enum Problem: Error, Sendable, Equatable {
        /// Empty, or longer than ``Identifier/maximumBytes``: the length in bytes.
        case length(Int)
        /// A control character somewhere in it.
        case controlCharacter
    }

    /// Why `text` is not an id; nil when it is one.
    public static func problem(_ text: String) -> Problem? {
        let utf8 = text.utf8
        let count = utf8.count
        guard count >= 1, count <= maximumBytes else { return .length(count) }
        // C0 and DEL are single bytes; C1 is 0xC2 followed by 0x80–0x9F.
        var afterC2 = false
        for byte in utf8 {
            if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return .controlCharacter }
            afterC2 = byte == 0xC2
        }
        return nil
    }

    /// Whether `text` is an id.
    public static func isValid(_ text: String) -> Bool { problem(text) == nil }
}

extension Identifier.Problem: CustomStringConvertible {
    /// What an id must be, after the name of the field: `must have 1 to 128 bytes, got 0`.
    public var requirement: String {
        switch self {
        case .length(let count): "must have 1 to \(Identifier.maximumBytes) bytes, got \(count)"
        case .controlCharacter: "must not contain control characters"
        }
    }

    /// `` `event_id` must have 1 to 128 bytes, got 0 ``.
    public func message(field: String) -> String { "`\(field)` \(requirement)" }

    public var description: String { "an id \(requirement)" }
}
