import Core
import Foundation
import YAML

/// A YAML file of test cases, usually in a test target's `Cases/` folder, read strictly as JSON
/// (``YAML/YAMLNode/json(path:)``: keys are text and given once, numbers finite).
///
/// `try CaseFile("ingest.yaml").cases(keys: …)` reads `Tests/<Target>/Cases/ingest.yaml` of the
/// calling test target; every problem is a ``CaseFileError`` naming the file and the line.
public struct CaseFile: Sendable {
    /// The file's full path.
    public let path: String
    /// The whole file as JSON (a mapping).
    public let document: JSON
    /// The parsed file, for the places of its parts.
    private let root: YAMLNode

    /// Reads `Cases/<name>` of the test target that `filePath` belongs to (by default, the
    /// calling file's).
    public init(_ name: String, filePath: String = #filePath) throws(CaseFileError) {
        try self.init(path: Repository.cases(of: filePath) + "/" + name)
    }

    /// Reads the case file at `path`: one YAML document, a mapping.
    public init(path: String) throws(CaseFileError) {
        self.path = path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CaseFileError("cannot read the file: \(error.localizedDescription)", in: path)
        }
        let documents: [YAMLNode]
        do {
            documents = try YAMLParser.parse(text)
        } catch {
            throw CaseFileError(error.message, in: path, at: error.mark)
        }
        guard let root = documents.first else { throw CaseFileError("the file has no YAML document", in: path) }
        guard documents.count == 1 else {
            throw CaseFileError(
                "the file has \(documents.count) YAML documents; a case file has one", in: path, at: documents[1].start)
        }
        guard root.pairs != nil else {
            throw CaseFileError(
                "the file must be a mapping (`key: value`), found a \(root.kindName)", in: path, at: root.start)
        }
        self.root = root
        document = try Self.json(root, at: ".", in: path)
    }

    /// The list under `key`, each item as JSON: a mapping with the keys `keys` allows (a table's
    /// rows, which need no `name`).
    public func list(_ key: String, keys: CaseKeys) throws(CaseFileError) -> [JSON] {
        try items(key).enumerated().map { index, item throws(CaseFileError) in
            try keys.check(item, what: "row \(index + 1) of `\(key)`", in: path)
            return try Self.json(item, at: ".\(key)[\(index)]", in: path)
        }
    }

    /// The list under `key` (by default `cases`): each item a mapping with a text `name`, the
    /// names all different, and the keys `keys` allows: at least one expectation, no key it
    /// does not know (a case that expects nothing, or a misspelt key, would pass unchecked).
    public func cases(_ key: String = "cases", keys: CaseKeys) throws(CaseFileError) -> [NamedCase] {
        var lines: [String: Int] = [:]
        var cases: [NamedCase] = []
        for (index, item) in try items(key).enumerated() {
            let place = "case \(index + 1) of `\(key)`"
            guard item.pairs != nil else {
                throw CaseFileError("\(place) must be a mapping, found a \(item.kindName)", in: path, at: item.start)
            }
            guard let nameNode = item["name"] else {
                throw CaseFileError("\(place) has no `name`", in: path, at: item.start)
            }
            guard case .string(let name) = try Self.json(nameNode, at: ".\(key)[\(index)].name", in: path) else {
                throw CaseFileError("the `name` of \(place) must be text", in: path, at: nameNode.start)
            }
            if let first = lines[name] {
                throw CaseFileError(
                    "case name `\(name)` is used twice (first at line \(first))", in: path, at: nameNode.start)
            }
            try keys.check(item, what: "case `\(name)`", in: path)
            lines[name] = nameNode.start.line
            cases.append(NamedCase(name: name, json: try Self.json(item, at: ".\(key)[\(index)]", in: path)))
        }
        return cases
    }

    /// `node` (at `nodePath` in the file) as JSON, by the one strict YAML → JSON conversion.
    private static func json(_ node: YAMLNode, at nodePath: String, in path: String) throws(CaseFileError) -> JSON {
        do {
            return try node.json(path: nodePath)
        } catch {
            throw CaseFileError(error.message, in: path, at: error.mark)
        }
    }

    /// The items of the list under `key`.
    private func items(_ key: String) throws(CaseFileError) -> [YAMLNode] {
        guard let node = root[key] else { throw CaseFileError("the file has no `\(key):` list", in: path) }
        guard let items = node.items else {
            throw CaseFileError("`\(key)` must be a list, found a \(node.kindName)", in: path, at: node.start)
        }
        return items
    }
}
