import Core
import Features
import Foundation
import JQ
import YAML

@testable import RuleEngine

/// A directory under the system's temporary folder, removed when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "journey-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ relative: String, _ text: String) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

enum Paths {
    /// The package's root folder.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `Tests/RuleEngineTests/Cases/<name>`
    static func caseFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cases/\(name)").path
    }
}

/// Reads a case file (`cases:` list) as JSON values.
func loadCases(_ name: String) -> [JSON] {
    do {
        let text = try String(contentsOfFile: Paths.caseFile(name), encoding: .utf8)
        guard let root = try YAMLParser.parse(text).first, case .array(let cases)? = try root.toJSON()["cases"] else {
            fatalError("\(name) has no `cases:` list")
        }
        return cases
    } catch {
        fatalError("cannot read case file \(name): \(error)")
    }
}

/// Every feature's rule kinds (the rule files of these tests use them).
enum AllRuleKinds {
    static let list = Features.all.ruleKinds
}
