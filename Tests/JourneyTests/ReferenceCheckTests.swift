import Core
import Features
import Foundation
import JQ
import RuleEngine
import TestSupport
import Testing

/// Names that must exist (Cases/references.yaml): each case edits a copy of the bundled
/// `Rules/`; `journey check` must refuse every name that does not exist at its file:line:column,
/// and `journey test` must fail every test whose rule returns a block its input lacks.
@Suite struct ReferenceCheckTests {
    @Test(
        arguments: try CaseFile("references.yaml").cases(
            keys: CaseKeys(
                expecting: ["errors", "failing_tests"], others: ["edit", "files"],
                parts: [
                    "errors": CaseKeys(expecting: ["code"], others: ["at", "message"]),
                    "failing_tests": CaseKeys(expecting: ["test"], others: ["message"]),
                ])))
    func namesThatDoNotExistAreRefused(_ testCase: NamedCase) throws {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        for (file, pairs) in testCase["edit"]?.objectValue ?? [:] {
            var text = try String(contentsOfFile: folder.file(file), encoding: .utf8)
            for pair in pairs.arrayValue ?? [] {
                let old = try #require(pair[0]?.stringValue)
                #expect(text.contains(old), "the case edits text that is not in \(file): \(old)")
                text = text.replacingOccurrences(of: old, with: pair[1]?.stringValue ?? "")
            }
            try folder.write(file, text)
        }
        for (file, text) in testCase["files"]?.objectValue ?? [:] { try folder.write(file, text.stringValue ?? "") }
        let loaded = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: Repository.plugins).load()

        let errors = loaded.diagnostics.filter { $0.severity == .error }
        let expected = testCase["errors"]?.arrayValue ?? []
        let rendered = errors.map(\.description).joined(separator: "\n")
        #expect(errors.count == expected.count, "\(rendered)")
        for (error, want) in zip(errors, expected) {
            #expect(error.location.description == folder.path + "/" + (want["at"]?.stringValue ?? ""), "\(rendered)")
            #expect(error.code == want["code"]?.stringValue, "\(rendered)")
            #expect(error.message.contains(want["message"]?.stringValue ?? ""), "\(rendered)")
        }
        guard let evaluator = loaded.evaluator else {
            #expect(!expected.isEmpty, "the rules do not load: \(rendered)")
            return
        }
        let failed = RuleTestRunner(evaluator: evaluator).run().filter { $0.status == .failed }
        let expectedFailures = testCase["failing_tests"]?.arrayValue ?? []
        let report = failed.map { "\($0.fullName): \($0.message ?? "")" }.joined(separator: "\n")
        #expect(failed.count == expectedFailures.count, "\(report)")
        for (outcome, want) in zip(failed, expectedFailures) {
            #expect(outcome.fullName == want["test"]?.stringValue, "\(report)")
            #expect(outcome.message?.contains(want["message"]?.stringValue ?? "") == true, "\(report)")
        }
    }
}
