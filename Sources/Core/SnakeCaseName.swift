/// The one rule for type names: event types (`weight_saved`), check types, metric names.
///
/// snake_case in ASCII: a lowercase letter, then lowercase letters, digits and `_`, at most a
/// given number of bytes (so of characters: every one is a byte).
public enum SnakeCaseName {
    /// The longest event type, in bytes: what events carry and rules' `events:` name.
    public static let maximumEventTypeBytes = 64

    /// Whether `text` is a snake_case name of at most `maximumBytes` bytes.
    public static func matches(_ text: String, maximumBytes: Int) -> Bool {
        let utf8 = text.utf8
        guard let first = utf8.first, isLowercaseLetter(first), utf8.count <= maximumBytes else { return false }
        return utf8.allSatisfy { isLowercaseLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    /// Whether `text` is an event type (a snake_case name of at most 64 bytes).
    public static func isEventType(_ text: String) -> Bool {
        matches(text, maximumBytes: maximumEventTypeBytes)
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
}
