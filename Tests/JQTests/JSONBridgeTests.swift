import Core
import Testing

@testable import JQ

/// JSON ↔ jv conversion must be lossless for everything jq can represent.
@Suite struct JSONBridgeTests {
    static let roundTrips: [(String, JSON)] = [
        ("null", .null),
        ("booleans", [true, false]),
        ("2^53 exact", .number(9_007_199_254_740_992)),
        ("-2^53 exact", .number(-9_007_199_254_740_992)),
        ("doubles", [0.1, -2.5e-300, 1.7976931348623157e308]),
        ("negative zero", .number(-0.0)),
        ("unicode and escapes", "Ünïcødé 🐕 \"quoted\" \\ back\nline\ttab \u{0}nul \u{7f}"),
        ("empty string", ""),
        ("key order kept", ["zeta": 1, "alpha": 2, "mid": ["b": 1, "a": 2]]),
        ("big object", .object(JSONObject((0..<100).map { ("k\(99 - $0)", .number(Double($0))) }))),
        ("nested", [["a": [[[1, [2, ["x": [3]]]]]]]]),
    ]

    @Test(arguments: roundTrips)
    func roundTrip(_ name: String, _ value: JSON) throws {
        let back = try JV(value).json()
        #expect(back == value)
        #expect(back.compactText == value.compactText, "key order must survive")
    }

    @Test func deepNestingRoundTrips() throws {
        var value: JSON = "leaf"
        for _ in 0..<500 { value = [value] }
        #expect(try JV(value).json() == value)
    }

    @Test func tooDeepIsAnErrorNotACrash() {
        var value: JSON = 1
        for _ in 0..<(JV.maximumDepth + 5) { value = ["k": value] }
        #expect(throws: JQError.self) { try JV(value).json() }
    }

    @Test func compactTextMatchesJq() throws {
        let value: JSON = ["b": [1, 2.5, "x\u{1}"], "a": nil, "c": ["d": true]]
        #expect(value.compactText == JV(value).compactText)
        #expect(value.compactText == #"{"b":[1,2.5,"x\u0001"],"a":null,"c":{"d":true}}"#)
    }

    /// The text of every round-trip value, of every ASCII character (escaped or not), and of
    /// texts longer than the writer's first buffer, is byte for byte what jq writes.
    @Test func everyTextMatchesJq() {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let long = String(repeating: "é\"🐕\u{1f}", count: 200)
        let values: [JSON] =
            Self.roundTrips.map(\.1) + (0..<128).map { JSON.string(String(UnicodeScalar(UInt8($0)))) } + [
                .string(ascii), .string(long), ["k": .string(long), .init(stringLiteral: long): [.string(ascii)]],
            ]
        for value in values {
            #expect(value.compactText == JV(value).compactText, "\(value.compactText.prefix(80))")
            var bytes: [UInt8] = [0x2A]
            value.appendCompactText(to: &bytes)
            #expect(bytes == [0x2A] + Array(value.compactText.utf8))
        }
        #expect(JSON.arrayText(of: values.map(\.compactText)) == JSON.array(values).compactText)
        #expect(JSON.arrayText(of: []) == "[]")
    }

    static let numbers: [Double] = [
        0, -0.0, 1, -1, 9, 10, -10, 99, 100, 12_345, -987_654_321, 999_999_999_999_999, 1e15, -1e15, 1e15 + 1,
        9_007_199_254_740_992, 1e17, 0.5, -0.5, 2.5, 1e-7, 123.000001, .nan, .infinity, -.infinity,
    ]

    /// Whole numbers are written digit by digit; the text must be what `format(number:)` and jq give.
    @Test(arguments: numbers)
    func numberText(_ n: Double) {
        #expect(JSON.number(n).compactText == JSON.format(number: n))
        if n.isFinite, n == n.rounded(), abs(n) < 1e17 {
            #expect(JSON.number(n).compactText == JV(JSON.number(n)).compactText)
        }
    }

    @Test func randomWholeNumbersText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let n =
                Double(Int64.random(in: -2_000_000_000_000_000...2_000_000_000_000_000, using: &generator))
                / [1, 1_000, 1_000_000][Int.random(in: 0..<3, using: &generator)]
            #expect(JSON.number(n).compactText == JSON.format(number: n), "\(n)")
        }
    }

    @Test func prettyText() {
        let value: JSON = ["a": [1, 2], "b": [:]]
        #expect(value.prettyText == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    @Test func objectEqualityIgnoresOrderButTextKeepsIt() {
        let a: JSON = ["x": 1, "y": 2]
        let b: JSON = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.compactText != b.compactText)
    }

    @Test func repeatedKeyKeepsFirstPositionLastValue() {
        let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test func objectIndexSurvivesRemoval() {
        var object = JSONObject((0..<40).map { ("k\($0)", JSON.number(Double($0))) })
        object["k3"] = nil
        #expect(object["k3"] == nil)
        #expect(object["k39"] == 39)
        #expect(object.count == 39)
    }

    @Test func subscriptReadsMembers() throws {
        let input = try JV.parse(#"{"dog":{"name":"Q"},"n":[1,2,3]}"#)
        #expect(input.kind == .object)
        #expect(try input["dog"]?["name"]?.json() == "Q")
        #expect(input["missing"] == nil)
        #expect(input["n"]?.count == 3)
    }
}
