import Foundation

/// The package's targets as `Package.swift` declares them and as their sources import them,
/// read from the files (no build needed): what the architecture tests check.
struct PackageGraph {
    /// A target: its name, its kind (`target`, `executableTarget`, `testTarget`, `systemLibrary`),
    /// its folder, the targets it declares, the modules its files import.
    struct Target {
        var name: String
        var kind: String
        var path: String
        var declared: Set<String>
        var imported: Set<String> = []
    }

    /// By name.
    var targets: [String: Target] = [:]

    /// The repository's root (the folder of `Package.swift`), from where this file stands.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Reads `Package.swift` under `root` and every Swift file of each target.
    init(root: String = PackageGraph.root) throws {
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        for declaration in Self.targetDeclarations(manifest) {
            var target = declaration
            target.imported = try Self.imports(under: root + "/" + target.path)
            targets[target.name] = target
        }
    }

    /// Each `.target(…)`, `.executableTarget(…)`, `.testTarget(…)` and `.systemLibrary(…)` of the
    /// manifest, with its `name:`, `dependencies:` and `path:` (the default folder when none).
    static func targetDeclarations(_ manifest: String) -> [Target] {
        var found: [Target] = []
        let kinds = [
            "target": "Sources", "executableTarget": "Sources", "testTarget": "Tests", "systemLibrary": "Sources",
        ]
        for (kind, folder) in kinds {
            var rest = manifest[...]
            while let start = rest.range(of: "." + kind + "(") {
                let body = balanced(rest[start.upperBound...])
                rest = rest[start.upperBound...]
                guard let name = firstString(after: "name:", in: body) else { continue }
                let path = firstString(after: "path:", in: body) ?? "\(folder)/\(name)"
                var declared: Set<String> = []
                if let list = body.range(of: "dependencies:") {
                    let open = body[list.upperBound...]
                    if let bracket = open.firstIndex(of: "[") {
                        let items = balanced(open[open.index(after: bracket)...], open: "[", close: "]")
                        declared = Set(strings(in: items))
                    }
                }
                found.append(Target(name: name, kind: kind, path: path, declared: declared))
            }
        }
        return found
    }

    /// The text up to the parenthesis (or bracket) that closes the one just before `text`.
    private static func balanced(_ text: Substring, open: Character = "(", close: Character = ")") -> Substring {
        var depth = 1
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == open { depth += 1 }
            if text[index] == close {
                depth -= 1
                if depth == 0 { return text[..<index] }
            }
            index = text.index(after: index)
        }
        return text
    }

    private static func firstString(after label: String, in text: Substring) -> String? {
        guard let range = text.range(of: label) else { return nil }
        return strings(in: text[range.upperBound...]).first
    }

    /// The double-quoted strings of `text`, in order.
    private static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The modules `import`ed by the Swift files under `folder` (`@testable import X` counts).
    static func imports(under folder: String) throws -> Set<String> {
        var modules: Set<String> = []
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + relative, encoding: .utf8)
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ")
                if words.first == "@testable" { words.removeFirst() }
                guard words.count == 2, words[0] == "import" else { continue }
                modules.insert(String(words[1]))
            }
        }
        return modules
    }

    /// The targets `name` depends on, directly or through others (declared dependencies).
    func closure(of name: String) -> Set<String> {
        var seen: Set<String> = []
        var queue = [name]
        while let next = queue.popLast() {
            for dependency in targets[next]?.declared ?? [] where seen.insert(dependency).inserted {
                queue.append(dependency)
            }
        }
        return seen
    }
}
