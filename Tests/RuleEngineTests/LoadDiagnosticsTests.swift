import Core
import JQ
import TestSupport
import Testing

@testable import RuleEngine

#if canImport(Glibc)
    import Glibc
#endif

/// One broken rules directory and the diagnostics it must produce.
struct LoadCase: Sendable, CustomTestStringConvertible {
    struct Expected: Sendable {
        var at: String
        var code: String
        var message: String?
    }

    var name: String
    var files: [(path: String, text: String)]
    var diagnostics: [Expected]

    var testDescription: String { name }

    init(_ json: JSON) {
        name = json["name"]?.stringValue ?? "?"
        files = (json["files"]?.objectValue ?? [:]).map { ($0.key, $0.value.stringValue ?? "") }
        diagnostics = (json["diagnostics"]?.arrayValue ?? []).map {
            Expected(
                at: $0["at"]?.stringValue ?? "", code: $0["code"]?.stringValue ?? "",
                message: $0["message"]?.stringValue)
        }
    }
}

@Suite struct LoadDiagnosticsTests {
    /// A rule directory that must not load: its `files` and the `diagnostics` expected.
    static let keys = CaseKeys(
        expecting: ["diagnostics"], others: ["files"],
        parts: ["diagnostics": CaseKeys(expecting: ["code"], others: ["at", "message"])])

    @Test(
        arguments: try CaseFile("load-diagnostics.yaml").cases(keys: Self.keys).map { LoadCase($0.json) })
    func brokenRulesAreRefusedWithEveryDiagnostic(_ testCase: LoadCase) throws {
        try Self.expectRefused(testCase)
    }

    /// Loads the case's files and expects exactly its errors, in order of place.
    static func expectRefused(_ testCase: LoadCase) throws {
        let directory = try TemporaryDirectory()
        for file in testCase.files { try directory.write(file.path, file.text) }
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.ruleSet == nil, "a broken rule set must not load")
        #expect(result.evaluator == nil)
        let errors = result.diagnostics.filter { $0.severity == .error }
        let rendered = errors.map(\.description).joined(separator: "\n")
        #expect(errors.count == testCase.diagnostics.count, "\(rendered)")
        for (actual, expected) in zip(errors, testCase.diagnostics) {
            #expect(actual.location.description == directory.path + "/" + expected.at, "\(rendered)")
            #expect(actual.code == expected.code, "\(rendered)")
            if let fragment = expected.message?.replacingOccurrences(of: "{dir}", with: directory.path) {
                #expect(actual.message.contains(fragment), "\(rendered)")
            }
        }
    }

    /// A test of a rule that reads a time window (`within`) without its own `now` would pass or
    /// fail with the day it runs: a warning at the test, the rules still load.
    @Test func aTestOfATimeWindowWithoutNowIsWarned() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "r.yaml",
            """
            rule: r
            kind: auto_complete
            reads: {records: [weight], within: 30d}
            expr: '[.records[]]'
            tests:
              - name: dated
                input: {dog: {}, block: {}, events: [], records: []}
                now: "2026-11-29T08:00:00Z"
                expect: []
              - name: undated
                input: {dog: {}, block: {}, events: [], records: []}
                expect: []
            """)
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.ruleSet != nil)
        let warnings = result.diagnostics.filter { $0.code == "test_without_now" }
        #expect(warnings.count == 1, "\(result.diagnostics)")
        #expect(warnings.first?.severity == .warning)
        #expect(warnings.first?.location.description == directory.path + "/r.yaml:10:5")
        #expect(warnings.first?.message.contains("reads `within: 30d`") == true)
    }

    @Test func duplicateIdsNoteTheFirstDefinition() throws {
        let directory = try TemporaryDirectory()
        try directory.write("a.yaml", "rule: same\nkind: value\nexpr: 1\n")
        try directory.write("b.yaml", "rule: same\nkind: value\nexpr: 2\n")
        let diagnostic = try #require(
            RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list).load()
                .diagnostics.first)
        #expect(diagnostic.location.file.hasSuffix("b.yaml"))
        #expect(diagnostic.notes.first?.location.file.hasSuffix("a.yaml") == true)
    }

    @Test func missingDirectoryIsADiagnostic() {
        let result = RuleSetLoader(
            rulesDirectory: "/nonexistent/rules", pluginsDirectory: nil, ruleKinds: AllRuleKinds.list
        ).load()
        #expect(result.diagnostics.map(\.code) == ["missing_directory"])
    }

    /// A file whose name is not UTF-8 is an error naming it (it was skipped in silence).
    @Test func aFileNameThatIsNotUTF8IsAnError() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: .\n")
        var bytes = Array((directory.path + "/bad").utf8) + [0xFF] + Array(".yaml".utf8) + [0]
        let fd = bytes.withUnsafeMutableBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
        }
        try #require(fd >= 0)
        close(fd)
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.ruleSet == nil || result.diagnostics.contains { $0.severity == .error })
        let diagnostic = try #require(result.diagnostics.first { $0.code == "invalid_file_name" })
        #expect(diagnostic.location.file.hasSuffix("/bad\\xFF.yaml"), "\(diagnostic.location.file)")
    }

    /// A file over the size limit is an error, and is not parsed.
    @Test func aFileOverTheSizeLimitIsAnError() throws {
        let directory = try TemporaryDirectory()
        let padding = String(repeating: "# padding\n", count: RuleSetLoader.maxFileBytes / 10 + 1)
        try directory.write("huge.yaml", padding + "rule: huge\nkind: value\nexpr: .\n")
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.diagnostics.map(\.code) == ["file_too_large"], "\(result.diagnostics)")
        #expect(result.ruleSet?.rule("huge") == nil)
    }

    /// Files each within their limit that together pass the rule set's limit: one error
    /// naming the folder and the largest files; nothing is loaded.
    @Test func aRuleSetOverItsSizeLimitIsAnError() throws {
        let directory = try TemporaryDirectory()
        let padding = String(repeating: "# padding\n", count: RuleSetLoader.maxFileBytes / 10 - 10)
        let files = RuleSetLoader.maxRuleSetBytes / padding.utf8.count + 1
        for n in 0..<files { try directory.write("part-\(n).yaml", padding + "rule: r\(n)\nkind: value\nexpr: .\n") }
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.diagnostics.map(\.code) == ["rule_set_too_large"], "\(result.diagnostics)")
        #expect(result.diagnostics.first?.message.contains("part-") == true)
        #expect(result.ruleSet == nil)
    }

    @Test func emptyFileIsOnlyAWarning() throws {
        let directory = try TemporaryDirectory()
        try directory.write("empty.yaml", "# nothing yet\n")
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: .\n")
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(result.ruleSet?.rules.count == 1)
        #expect(result.diagnostics.map(\.code) == ["empty_file"])
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
