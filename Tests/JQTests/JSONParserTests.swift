import Core
import Testing

@testable import JQ

/// The Swift JSON parser agrees with libjq on valid input and refuses bad input clearly.
@Suite struct JSONParserTests {
    static let valid: [String] = [
        "null", "true", "false", "0", "-0", "42", "-17", "3.25", "1e3", "-2.5E-3", "123456789012345678",
        "9007199254740993", "0.1", "1e400",
        #""""#, #""plain""#, #""esc \" \\ \/ \b \f \n \r \t""#, #""\u00e9\u20ac\ud83d\udc36""#, "\"Grüße 🐶\"",
        "[]", "[1,[2,[3]]]", "{}", #"{"b":1,"a":{"c":[true,null]}}"#, #"{"a":1,"a":2}"#,
        " \n\t{ \"spaced\" : [ 1 , 2 ] } \r\n",
    ]

    @Test(arguments: valid)
    func agreesWithLibjq(_ text: String) throws {
        let ours = try JSONParser().parse(text)
        let theirs = try JV.parse(text).json()
        #expect(
            ours == theirs || (ours.numberValue?.isInfinite == true && theirs.numberValue == .greatestFiniteMagnitude))
        #expect(ours.compactText == theirs.compactText || ours.numberValue?.isInfinite == true)
    }

    static let invalid: [(String, String, Int, Int)] = [
        ("", "unexpected end of input", 1, 1),
        ("{", "expected a member name", 1, 2),
        ("[1,]", "unexpected character ']'", 1, 4),
        ("[1 2]", "expected ',' or ']'", 1, 4),
        ("{\"a\" 1}", "expected ':'", 1, 6),
        ("{\"a\":1,}", "expected a member name", 1, 8),
        ("01", "cannot start with 0", 1, 2),
        ("1.", "expected a digit after '.'", 1, 3),
        ("-", "expected a digit", 1, 2),
        ("tru", "expected true", 1, 1),
        ("\"a\nb\"", "control character U+000A", 1, 3),
        ("\"\\x\"", "invalid escape", 1, 3),
        ("\"\\ud83d\"", "lone high surrogate", 1, 8),
        ("\"\\udc36\"", "lone low surrogate", 1, 8),
        ("{} {}", "unexpected text after the JSON value", 1, 4),
        ("NaN", "unexpected character 'N'", 1, 1),
        ("\n\n  [1, 2, oops]", "unexpected character 'o'", 3, 10),
    ]

    @Test(arguments: invalid)
    func refusesWithPosition(_ text: String, _ message: String, _ line: Int, _ column: Int) {
        do {
            _ = try JSONParser().parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.message.contains(message), "\(error)")
            #expect(error.line == line && error.column == column, "\(error)")
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONParseError.self) { try JSONParser().parse([0x22, 0xFF, 0x22]) }
    }

    @Test func depthIsLimited() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        _ = try JSONParser().parse(fine)
    }

    @Test func repeatedKeyKeepsFirstPositionLastValue() throws {
        let value = try JSONParser().parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.compactText == #"{"a":3,"b":2}"#)
    }
}
