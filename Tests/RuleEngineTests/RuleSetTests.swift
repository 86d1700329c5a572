import Core
import Foundation
import JQ
import TestSupport
import Testing

@testable import RuleEngine

@Suite struct RuleSetTests {
    func load(_ directory: TemporaryDirectory) -> RuleSet? {
        RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list).load()
            .ruleSet
    }

    @Test func revisionIsAContentHash() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: 1\n")
        let first = try #require(load(directory)).revision
        #expect(first.count == 64)
        #expect(try #require(load(directory)).revision == first, "same files, same revision")
        try directory.write("lib/x.jq", "def x: 1;\n")
        let second = try #require(load(directory)).revision
        #expect(second != first, "a library file counts")
        try directory.write("fixtures/f.json", "{}")
        #expect(try #require(load(directory)).revision != second, "a fixture counts")
    }

    @Test func editorLeftoversAndHiddenFilesAreIgnored() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: 1\n")
        let revision = try #require(load(directory)).revision
        try directory.write("r.yaml~", "garbage: [")
        try directory.write(".r.yaml.swp", "garbage: [")
        try directory.write(".hidden/r.yaml", "garbage: [")
        try directory.write("#r.yaml#", "garbage: [")
        #expect(try #require(load(directory)).revision == revision)
    }

    @Test func fixturesFoldersAndReadmesAreNotRules() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: 1\n")
        try directory.write("fixtures/data.json", "{\"not\": \"a rule\"}")
        try directory.write("journey/fixtures/data.yaml", "not: a rule\n")
        try directory.write("README.md", "# rules\n")
        #expect(try #require(load(directory)).rules.map(\.id) == ["r"])
    }

    @Test func jsonRuleFilesLoad() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "r.json",
            #"{"rule": "r", "kind": "value", "expr": ".a + 1", "tests": [{"name": "t", "input": {"a": 1}, "expect": 2}]}"#
        )
        let ruleSet = try #require(load(directory))
        #expect(ruleSet.rule("r")?.tests.count == 1)
    }

    @Test func inputIsLaidOverTheFixture() throws {
        let directory = try TemporaryDirectory()
        try directory.write("fixtures/base.json", #"{"a": 1, "b": 2}"#)
        try directory.write(
            "r.yaml",
            "rule: r\nkind: value\nexpr: .\ntests:\n  - name: t\n    input_file: fixtures/base.json\n    input: {b: 3}\n    expect: {a: 1, b: 3}\n"
        )
        let test = try #require(load(directory)?.rule("r")?.tests.first)
        #expect(test.input == ["a": 1, "b": 3])
    }

    @Test func expressionLinesMapIntoTheFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: |\n    .a\n\n    | .b\n")
        let expression = try #require(load(directory)?.rule("r")?.defaultVariant.expression)
        #expect(expression.location(line: 1, column: nil).description.hasSuffix("r.yaml:4:5"))
        #expect(expression.location(line: 3, column: nil).description.hasSuffix("r.yaml:6:5"))
    }
}

@Suite struct SupportTypeTests {
    static let timestamps: [(String, Double?)] = [
        ("1970-01-01T00:00:00Z", 0),
        ("2026-11-29T09:00:00Z", 1_795_942_800),
        ("2026-11-29T10:00:00+01:00", 1_795_942_800),
        ("2026-11-29T04:00:00-05:00", 1_795_942_800),
        ("2024-02-29T12:00:00.250Z", 1_709_208_000.25),
        ("2026-02-29T12:00:00Z", nil),
        ("2026-11-29", nil),
        ("2026-11-29T09:00:00", nil),
        ("2026-11-29T25:00:00Z", nil),
    ]

    @Test(arguments: timestamps)
    func timestampParsing(_ text: String, _ expected: Double?) {
        #expect(Timestamp.parse(text) == expected)
    }

    static let formatted: [(Double, String)] = [
        (1_795_942_800, "2026-11-29T09:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_795_942_800.25, "2026-11-29T09:00:00.250Z"),
        // A fraction that rounds up to a whole second carries into it (was ".1000Z").
        (1_795_942_800.9996, "2026-11-29T09:00:01Z"),
        (1_795_942_859.9999, "2026-11-29T09:01:00Z"),
        (-0.0004, "1970-01-01T00:00:00Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
    ]

    @Test(arguments: formatted)
    func timestampFormatting(_ seconds: Double, _ expected: String) {
        #expect(Timestamp.format(seconds) == expected)
    }

    @Test func sha256Vectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    static let durations: [(String, Duration?)] = [
        ("250ms", .milliseconds(250)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("2h", .seconds(7200)),
        ("7d", .seconds(604_800)), ("1h30m", .seconds(5400)), ("1.5s", .milliseconds(1500)),
        ("", nil), ("5", nil), ("5 minutes", nil), ("-1s", nil), ("ms", nil),
        (" 14d ", .seconds(1_209_600)), ("  ", nil), ("1h 30m", nil), ("1.2.3s", nil), (".5s", .milliseconds(500)),
        ("2.s", .seconds(2)), ("1D", nil), ("1w", nil), ("5mss", nil), ("1m30", nil), ("1\u{301}s", nil),
        ("٣s", nil), ("1h30m15s250ms", .milliseconds(5_415_250)), ("999999999999999s", nil),
        ("11574075d", nil), ("11574074d", .seconds(999_999_993_600)), ("1234567890123456ms", nil),
        ("0.001ms", .milliseconds(0)), ("0d", .milliseconds(0)),
    ]

    @Test(arguments: durations)
    func durationParsing(_ text: String, _ expected: Duration?) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test func durationFormatting() {
        #expect(DurationText.format(.milliseconds(250)) == "250ms")
        #expect(DurationText.format(.seconds(90)) == "1m30s")
        #expect(DurationText.format(.seconds(604_800)) == "7d")
    }

    @Test func diffMarksRemovedBeforeAdded() {
        let lines = TextDiff.lines(expected: "a\nb\nc", actual: "a\nx\nc")
        #expect(lines.map(\.text) == ["  a", "- b", "+ x", "  c"])
    }
}

/// A program cache spares compiling unchanged rules on a reload, and never hides a change.
@Suite struct ProgramCacheTests {
    @Test func reloadCompilesOnlyWhatChanged() throws {
        let folder = try TemporaryDirectory()
        try folder.write("lib/util.jq", "def twice: . * 2;\n")
        try folder.write("a.yaml", "rule: a\nkind: value\nexpr: '1'\n")
        try folder.write("b.yaml", "rule: b\nkind: value\nexpr: 'import \"util\" as u; 2 | u::twice'\n")
        let cache = ProgramCache()
        var loader = RuleSetLoader(rulesDirectory: folder.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
        loader.programCache = cache
        #expect(loader.load().ruleSet != nil)
        #expect(cache.lastCompiled == 2 && cache.lastReused == 0)

        try folder.write("a.yaml", "rule: a\nkind: value\nexpr: '10'\n")
        let second = loader.load()
        #expect(cache.lastCompiled == 1 && cache.lastReused == 1)
        #expect(try second.evaluator?.evaluate("a", input: JV(.null)).outputs == [10])

        // A library change compiles every rule that can import it.
        try folder.write("lib/util.jq", "def twice: . * 3;\n")
        let third = loader.load()
        #expect(cache.lastCompiled == 2 && cache.lastReused == 0)
        #expect(try third.evaluator?.evaluate("b", input: JV(.null)).outputs == [6])

        // An evaluator of its own takes over unchanged programs from the one it replaces.
        try folder.write("a.yaml", "rule: a\nkind: value\nexpr: '100'\n")
        let fourth = loader.load()
        #expect(cache.lastCompiled == 1 && cache.lastReused == 1)
        let fresh = RuleEvaluator(ruleSet: try #require(fourth.ruleSet))
        let adopted = fresh.adoptPrograms(from: try #require(third.evaluator))
        #expect(adopted.reused == 1 && adopted.compiled == 1)
        #expect(try fresh.evaluate("a", input: JV(.null)).outputs == [100])
        #expect(try fresh.evaluate("b", input: JV(.null)).outputs == [6])
    }
}
