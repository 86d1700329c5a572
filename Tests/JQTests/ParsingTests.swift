import Core
import Testing

@testable import JQ

/// Reading JSON text: streams of values, and clear errors for every kind of bad input.
@Suite struct ParsingTests {
    @Test func streamOfValues() throws {
        let values = try JV.parseAll(Array("1 [2] {\"a\":3}\n\"x\"".utf8))
        #expect(try values.map { try $0.json() } == [1, [2], ["a": 3], "x"])
    }

    @Test func emptyInputIsNoValues() throws {
        #expect(try JV.parseAll([]).isEmpty)
        #expect(try JV.parseAll(Array("  \n".utf8)).isEmpty)
    }

    @Test func integersUpTo2to53AreExact() throws {
        #expect(try JV.parse("9007199254740993").json() == .number(9_007_199_254_740_992))
        #expect(try JV.parse("9007199254740991").json() == .number(9_007_199_254_740_991))
    }

    static let badInputs: [(String, [UInt8], JQError.Code, String)] = [
        ("truncated", Array(#"{"a": [1, 2"#.utf8), .invalidJSON, "Unfinished JSON term"),
        ("garbage", Array("{nope}".utf8), .invalidJSON, "line 1"),
        ("invalid UTF-8", [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, "byte 0xFF at line 1, column 3"),
        ("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, "offset 1"),
        ("surrogate in UTF-8", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, "offset 1"),
        ("truncated UTF-8", [0x0A, 0x22, 0xE2, 0x82], .invalidUTF8, "line 2, column 2"),
        (
            "too deep", Array((String(repeating: "[", count: 300) + String(repeating: "]", count: 300)).utf8),
            .invalidJSON, "depth"
        ),
    ]

    @Test(arguments: badInputs)
    func badInputGetsAClearError(_ name: String, _ bytes: [UInt8], _ code: JQError.Code, _ fragment: String) {
        do {
            _ = try JV.parseAll(bytes)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == code)
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func tenMegabytesIsRefusedBeforeParsing() {
        let big = [UInt8](repeating: 0x20, count: 10 * 1024 * 1024)
        #expect {
            try JV.parseAll(big)
        } throws: { error in
            let error = error as! JQError
            return error.code == .inputTooLarge && error.message.contains("10.0 MiB")
        }
    }

    @Test func validMultibyteUTF8IsAccepted() throws {
        let text = "\"Grüße 🐶 日本\""
        #expect(try JV.parse(text).json() == "Grüße 🐶 日本")
    }

    @Test func parseRequiresExactlyOneValue() {
        #expect(throws: JQError.self) { try JV.parse("1 2") }
        #expect(throws: JQError.self) { try JV.parse("") }
    }
}
