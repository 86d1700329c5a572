import Core
import JQ
import RuleEngine
import TestSupport
import Testing

/// `journey check` on experiments and onboarding flows: each mistake is an error naming the
/// file, the line and what to do (Cases/check.yaml).
struct CheckTests {
    @Test(
        arguments: try CaseFile("check.yaml").cases(
            keys: CaseKeys(
                expecting: ["expect"], others: ["files"],
                parts: ["expect": CaseKeys(expecting: ["code"], others: ["file", "line", "column", "message"])])))
    func diagnostics(_ testCase: NamedCase) {
        var files: [String: String] = [:]
        for (name, text) in testCase["files"]!.objectValue! { files[name] = text.stringValue! }
        let folder = RulesFolder(files)
        let diagnostics = folder.load().diagnostics.filter { $0.severity == .error }
        let name = testCase["name"]!.stringValue!
        let expected = testCase["expect"]!.arrayValue!
        for want in expected {
            let code = want["code"]!.stringValue!
            let file = want["file"]!.stringValue!
            let line = Int(want["line"]!.numberValue!)
            let message = want["message"]!.stringValue!
            // The column is checked where the case gives one.
            let column = want["column"]?.numberValue.map(Int.init)
            let found = diagnostics.contains {
                $0.code == code && $0.location.file.hasSuffix("/" + file) && $0.location.line == line
                    && (column == nil || $0.location.column == column)
                    && (message.isEmpty || $0.message.contains(message))
            }
            #expect(
                found,
                "\(name): expected \(code) at \(file):\(line)\(column.map { ":\($0)" } ?? "") containing \"\(message)\"; got:\n\(diagnostics.map(\.description).joined(separator: "\n"))"
            )
        }
        #expect(
            diagnostics.count == expected.count, "\(name): \(diagnostics.map(\.description).joined(separator: "\n"))")
    }
}
