import Core
import Testing

/// The one rule for type names: ASCII snake_case, bounded in bytes.
@Suite struct SnakeCaseNameTests {
    static let names: [(String, Bool)] = [
        ("weight_saved", true), ("a", true), ("tap2", true), ("a_", true), ("a__b", true),
        (String(repeating: "a", count: 64), true), (String(repeating: "a", count: 65), false),
        ("", false), ("_a", false), ("2fa", false), ("Weight", false), ("weight-saved", false),
        ("weight saved", false), ("wéight", false), ("a\u{301}", false), ("ａ", false), ("tap\n", false),
    ]

    @Test(arguments: names)
    func eventTypes(_ text: String, _ isName: Bool) {
        #expect(SnakeCaseName.isEventType(text) == isName)
    }

    @Test func theBoundIsInBytes() {
        #expect(SnakeCaseName.matches(String(repeating: "x", count: 40), maximumBytes: 40))
        #expect(!SnakeCaseName.matches(String(repeating: "x", count: 41), maximumBytes: 40))
    }
}
