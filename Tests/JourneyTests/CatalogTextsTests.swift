import Core
import Features
import Foundation
import RuleEngine
import TestSupport
import Testing

/// `journey check` on the catalog's locale texts (Cases/catalog-texts.yaml): each case edits the
/// bundled rules and gets exactly its errors, each at its file:line:col.
struct CatalogTextsTests {
    @Test(
        arguments: try CaseFile("catalog-texts.yaml").cases(
            keys: CaseKeys(
                expecting: ["errors"], others: ["edit"],
                parts: ["errors": CaseKeys(expecting: ["code"], others: ["file", "line_of", "column", "message"])])))
    func catalogTextsAreChecked(_ testCase: NamedCase) throws {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        for edit in testCase.json["edit"]?.arrayValue ?? [] {
            let path = folder.file(try #require(edit["file"]?.stringValue))
            let old = try #require(edit["old"]?.stringValue)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(old), "the case edits text that is not in \(path): \(old)")
            try text.replacingOccurrences(of: old, with: edit["new"]?.stringValue ?? "")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        let result = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: Repository.plugins).load()
        let errors = result.diagnostics.filter { $0.severity == .error }
        let rendered = errors.map(\.description).joined(separator: "\n")
        let expected = testCase.json["errors"]?.arrayValue ?? []
        #expect(errors.count == expected.count, "\(rendered)")
        for want in expected {
            let file = try #require(want["file"]?.stringValue)
            let lines = try String(contentsOfFile: folder.file(file), encoding: .utf8).components(separatedBy: "\n")
            let fragment = try #require(want["line_of"]?.stringValue)
            let line = try #require(lines.firstIndex { $0.contains(fragment) }, "\(fragment) in \(file)") + 1
            let at = "\(folder.path)/\(file):\(line):\(Int(want["column"]?.numberValue ?? 0))"
            #expect(
                errors.contains {
                    $0.location.description == at && $0.code == want["code"]?.stringValue
                        && $0.message.contains(want["message"]?.stringValue ?? "")
                }, "expected at \(at): \(want.compactText)\n\(rendered)")
        }
        #expect((result.ruleSet == nil) == !expected.isEmpty)
    }
}
