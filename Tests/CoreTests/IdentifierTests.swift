import Core
import Testing

/// The one identifier rule: 1 to 128 bytes of UTF-8, no control characters.
@Suite struct IdentifierTests {
    static let texts: [(String, Identifier.Problem?)] = [
        ("q-123", nil), ("a", nil), ("user@example.com", nil), ("with space", nil), ("Grüße 🐶", nil),
        ("550e8400-e29b-41d4-a716-446655440000", nil), ("walk-50k@2026-11-30", nil),
        ("¢ and \u{A0} and ÿ and Ā", nil),  // U+00A2 and U+00A0 follow a 0xC2 byte but are not controls
        (String(repeating: "a", count: 128), nil),
        (String(repeating: "é", count: 64), nil),  // 64 characters, 128 bytes
        ("", .length(0)),
        (String(repeating: "a", count: 129), .length(129)),
        (String(repeating: "é", count: 65), .length(130)),  // 65 characters: bytes count, not characters
        (String(repeating: "🐶", count: 33), .length(132)),
        ("a\u{0}b", .controlCharacter), ("tab\t", .controlCharacter), ("line\nbreak", .controlCharacter),
        ("\u{1F}", .controlCharacter), ("delete\u{7F}", .controlCharacter), ("next line\u{85}", .controlCharacter),
        ("\u{80}", .controlCharacter), ("\u{9F}", .controlCharacter),
    ]

    @Test(arguments: texts)
    func theRule(_ text: String, _ expected: Identifier.Problem?) {
        #expect(Identifier.problem(text) == expected)
        #expect(Identifier.isValid(text) == (expected == nil))
    }

    @Test func everyControlCharacterIsRefusedAndNothingElseBelowU0100() {
        for value in UInt32(0)..<0x100 {
            let scalar = Unicode.Scalar(value)!
            let text = "id" + String(Character(scalar))
            #expect(Identifier.isValid(text) == (scalar.properties.generalCategory != .control), "U+\(value)")
        }
    }

    static let messages: [(Identifier.Problem, String)] = [
        (.length(0), "`event_id` must have 1 to 128 bytes, got 0"),
        (.length(200), "`event_id` must have 1 to 128 bytes, got 200"),
        (.controlCharacter, "`event_id` must not contain control characters"),
    ]

    @Test(arguments: messages)
    func messagesNameTheField(_ problem: Identifier.Problem, _ message: String) {
        #expect(problem.message(field: "event_id") == message)
    }
}
