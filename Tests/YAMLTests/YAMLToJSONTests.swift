import Core
import Testing

@testable import YAML

/// The one YAML → JSON conversion: what it gives, and what it refuses with where.
@Suite struct YAMLToJSONTests {
    static let conversions: [(String, JSON)] = [
        ("a: 1", ["a": 1]),
        ("[1, 'x', ~, true, -2.5]", [1, "x", nil, true, -2.5]),
        ("b: 1\na: 2\nc: 3", ["b": 1, "a": 2, "c": 3]),
        ("'1': one\n\"true\": yes\n!!str 2: two", ["1": "one", "true": "yes", "2": "two"]),
        ("yes: no\noff: on", ["yes": "no", "off": "on"]),
        ("a: '.inf'\nb: \".nan\"", ["a": ".inf", "b": ".nan"]),
        ("a: {b: [x, {c: ''}]}", ["a": ["b": ["x", ["c": ""]]]]),
        ("base: &b {x: 1}\ncopy: *b", ["base": ["x": 1], "copy": ["x": 1]]),
        ("a: 0x1F\nb: 1e3", ["a": 31, "b": 1000]),
        ("plain text", "plain text"),
    ]

    @Test(arguments: conversions)
    func convertsByTheCoreSchema(_ yaml: String, _ expected: JSON) throws {
        let node = try #require(try YAMLParser.parse(yaml).first)
        let json = try node.json()
        #expect(json == expected)
        // Same members in the same order: equality alone ignores key order.
        #expect(json.compactText == expected.compactText)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var yaml: String
        var problem: YAMLToJSONError.Problem
        var path: String
        var line: Int
        var column: Int
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(
            name: "a key given twice", yaml: "a: 1\na: 2",
            problem: .duplicateKey("a", first: YAMLMark(line: 1, column: 1)), path: ".", line: 2, column: 1),
        Refusal(
            name: "a key given twice deep down", yaml: "x:\n  - {k: 1, k: 2}",
            problem: .duplicateKey("k", first: YAMLMark(line: 2, column: 6)), path: ".x[0]", line: 2, column: 12),
        Refusal(
            name: "a quoted key equal to a plain one", yaml: "a: 1\n'a': 2",
            problem: .duplicateKey("a", first: YAMLMark(line: 1, column: 1)), path: ".", line: 2, column: 1),
        Refusal(
            name: "a list as a key", yaml: "? [a]\n: 1", problem: .keyNotText("a list"), path: ".", line: 1,
            column: 3),
        Refusal(
            name: "a number as a key", yaml: "m:\n  1: x", problem: .keyNotText("the number 1 (quote it)"),
            path: ".m", line: 2, column: 3),
        Refusal(
            name: "a boolean as a key", yaml: "true: x", problem: .keyNotText("the boolean true (quote it)"),
            path: ".", line: 1, column: 1),
        Refusal(
            name: "null as a key", yaml: "~: x", problem: .keyNotText("null (quote it to use it as text)"),
            path: ".", line: 1, column: 1),
        Refusal(
            name: "infinity", yaml: "a: {b: .inf}", problem: .nonFiniteNumber(".inf"), path: ".a.b", line: 1,
            column: 8),
        Refusal(
            name: "minus infinity in a list", yaml: "- 1\n- -.Inf", problem: .nonFiniteNumber("-.Inf"), path: ".[1]",
            line: 2, column: 3),
        Refusal(
            name: "not a number", yaml: "\"a b\": {c: .nan}", problem: .nonFiniteNumber(".nan"),
            path: #".["a b"].c"#, line: 1, column: 12),
        Refusal(
            name: "an unsupported tag", yaml: "a: [!include other.yaml]",
            problem: .scalar("unsupported YAML tag !include"), path: ".a[0]", line: 1, column: 5),
        Refusal(
            name: "text that does not fit its tag", yaml: "a: !!int ten",
            problem: .scalar("`ten` does not match its tag tag:yaml.org,2002:int"), path: ".a", line: 1, column: 4),
    ]

    @Test(arguments: refusals)
    func refusesWithThePathLineAndColumn(_ refusal: Refusal) throws {
        let node = try #require(try YAMLParser.parse(refusal.yaml).first)
        do {
            let json = try node.json()
            Issue.record("converted to \(json)")
        } catch {
            #expect(error.problem == refusal.problem)
            #expect(error.path == refusal.path)
            #expect(error.mark == YAMLMark(line: refusal.line, column: refusal.column))
            #expect(error.message.hasPrefix("`\(refusal.path)`: "))
        }
    }

    @Test func aPathGivenIsThePrefixOfEveryPlace() throws {
        let node = try #require(try YAMLParser.parse("input:\n  x: [1, .nan]").first?["input"])
        #expect(
            throws: YAMLToJSONError(.nonFiniteNumber(".nan"), path: ".input.x[1]", at: YAMLMark(line: 2, column: 10))
        ) {
            try node.json(path: ".input")
        }
    }

    @Test func theMessageSaysWhatAndWhere() throws {
        let node = try #require(try YAMLParser.parse("a:\n  k: 1\n  k: 2").first)
        do {
            let json = try node.json()
            Issue.record("converted to \(json)")
        } catch {
            #expect(error.message == "`.a`: key `k` is given twice (first at line 2, column 3)")
            #expect(error.description == "3:3: `.a`: key `k` is given twice (first at line 2, column 3)")
        }
    }
}
