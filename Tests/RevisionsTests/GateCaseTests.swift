import Core
import Features
import RevisionStore
import Revisions
import RuleEngine
import TestSupport
import Testing

/// Cases/gates.yaml: every gate of a publish, each refusal with its diagnostic.
@Suite struct GateCaseTests {
    static let bundled = try? RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)

    @Test(
        arguments: try CaseFile("gates.yaml").cases(
            keys: CaseKeys(
                expecting: ["expect"], others: ["files", "parent"],
                parts: [
                    "edits": CaseKeys(others: ["file", "replace", "with"]),
                    "expect": CaseKeys(
                        expecting: ["passed"], others: ["failed_test"],
                        parts: ["diagnostics": CaseKeys(expecting: ["code"], others: ["at"])]),
                ])))
    func gate(_ testCase: NamedCase) throws {
        let bundled = try #require(Self.bundled)
        var files = bundled.files
        for edit in testCase.json["edits"]?.arrayValue ?? [] {
            let path = try #require(edit["file"]?.stringValue)
            let old = try #require(edit["replace"]?.stringValue)
            let text = try #require(files[path], "\(testCase): no file \(path)")
            #expect(text.contains(old), "\(testCase): \(path) has no `\(old)`")
            files[path] = text.replacingOccurrences(of: old, with: edit["with"]?.stringValue ?? "")
        }
        for (path, text) in testCase.json["files"]?.objectValue ?? [:] { files[path] = text.stringValue }
        let parent = testCase.json["parent"] == false ? nil : bundled
        let report = RevisionGates(engine: Features.all).run(try RevisionFiles(files), parent: parent)
        let expect = testCase.json["expect"] ?? .null
        let place = "\(testCase): \(report.summary)\n\(report.diagnostics.map(\.description).joined(separator: "\n"))"
        #expect(report.passed == (expect["passed"] == true), "\(place)")
        for wanted in expect["diagnostics"]?.arrayValue ?? [] {
            let code = wanted["code"]?.stringValue ?? ""
            let at = wanted["at"]?.stringValue ?? ""
            #expect(
                report.diagnostics.contains { $0.code == code && "\($0.location)".hasPrefix(at + ":") },
                "\(place): expected \(code) at \(at)")
        }
        if let test = expect["failed_test"]?.stringValue {
            #expect(report.failedTests.contains { $0.test == test }, "\(place): expected test `\(test)` to fail")
        }
    }

    /// A revision is named as the rule set loaded from the same folders names itself.
    @Test func aRevisionIsNamedAsTheLoadedRuleSet() throws {
        let files = try #require(Self.bundled)
        let loaded = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        #expect(files.revision == loaded.ruleSet?.revision)
    }

    static let badPaths: [(String, String)] = [
        ("../etc/passwd", "starts with Rules/ or Plugins/"), ("Rules/../x.yaml", "`..`"),
        ("Rules//x.yaml", "empty"), ("Rules/.hidden.yaml", "hidden"), ("Rules/x.yaml~", "editor leftovers"),
        ("Rules/x\u{7}.yaml", "control characters"), ("Rules\\x.yaml", "starts with Rules/"),
        ("Other/x.yaml", "starts with"),
    ]

    @Test(arguments: badPaths)
    func aPathThatCannotBePartOfARevisionIsRefused(path: String, message: String) throws {
        var files = try #require(Self.bundled).files
        files[path] = "x: 1\n"
        let error = #expect(throws: RevisionError.self) { try RevisionFiles(files) }
        guard case .invalidFiles(let problems)? = error else { return }
        #expect(problems.contains { $0.path == path && $0.message.contains(message) }, "\(problems)")
    }
}
