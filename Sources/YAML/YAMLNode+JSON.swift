import Core

extension YAMLNode {
    /// The node as JSON, strictly: scalars by the YAML 1.2 core schema (see ``resolvedScalar()``),
    /// mapping keys must be text (a plain `1`, `true` or `~` is not: quote it) and given once,
    /// and numbers must be finite (JSON has no `.inf` or `.nan`).
    ///
    /// This is the one YAML → JSON conversion: rule files, documents and case files all use it.
    /// - Parameter path: where the node is in its document, in jq syntax (`.tests[0].input`),
    ///   to name the place of a problem; `.` for a node converted on its own.
    /// - Throws: ``YAMLToJSONError`` for the first problem in document order, with the path,
    ///   line and column of what was refused.
    public func json(path: String = ".") throws(YAMLToJSONError) -> JSON {
        var converter = YAMLToJSONConverter(base: path == "." ? "" : path)
        return try converter.convert(self)
    }
}

/// Why a YAML node cannot be JSON, and where: the path (jq syntax) and the line and column.
public struct YAMLToJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// A mapping key given a second time; `first` is where it was given first.
        case duplicateKey(String, first: YAMLMark)
        /// A mapping key that is not text; the text says what it is (`a list`, `the number 1`).
        case keyNotText(String)
        /// `.inf`, `-.inf` or `.nan`, written as it was.
        case nonFiniteNumber(String)
        /// A scalar the core schema refuses (an unsupported tag, or text that does not fit its tag).
        case scalar(String)
    }

    public var problem: Problem
    /// The mapping (for key problems) or the scalar refused, in jq syntax: `.`, `.a.b[2]`, `.["a b"]`.
    public var path: String
    /// Where the refused key or scalar is.
    public var mark: YAMLMark

    public init(_ problem: Problem, path: String, at mark: YAMLMark) {
        self.problem = problem
        self.path = path
        self.mark = mark
    }

    /// `` `.a.b`: key `k` is given twice (first at line 3, column 5) ``.
    public var message: String {
        let what: String
        switch problem {
        case .duplicateKey(let key, let first):
            what = "key `\(key)` is given twice (first at line \(first.line), column \(first.column))"
        case .keyNotText(let found):
            what = "keys must be text, found \(found)"
        case .nonFiniteNumber(let text):
            what = "numbers must be finite in JSON, found `\(text)`"
        case .scalar(let message):
            what = message
        }
        return "`\(path)`: \(what)"
    }

    /// `line:column: message`, as ``YAMLError`` prints.
    public var description: String { "\(mark.line):\(mark.column): \(message)" }
}

/// Walks a node tree, keeping the path only as parts (it is printed only for an error).
private struct YAMLToJSONConverter {
    private enum Part {
        case key(String)
        case index(Int)
    }

    let base: String
    private var parts: [Part] = []

    init(base: String) {
        self.base = base
    }

    mutating func convert(_ node: YAMLNode) throws(YAMLToJSONError) -> JSON {
        switch node.content {
        case .scalar(let scalar):
            switch try resolve(node) {
            case .null?, nil: return .null
            case .bool(let b)?: return .bool(b)
            case .number(let n)?:
                guard n.isFinite else { throw failure(.nonFiniteNumber(scalar.value), at: node.start) }
                return .number(n)
            case .string(let s)?: return .string(s)
            }
        case .sequence(let items):
            var elements: [JSON] = []
            elements.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                parts.append(.index(index))
                elements.append(try convert(item))
                parts.removeLast()
            }
            return .array(elements)
        case .mapping(let pairs):
            var object = JSONObject()
            object.reserveCapacity(pairs.count)
            var firstMarks: [String: YAMLMark] = [:]
            for pair in pairs {
                let key = try text(ofKey: pair.key)
                if let first = firstMarks[key] {
                    throw failure(.duplicateKey(key, first: first), at: pair.key.start)
                }
                firstMarks[key] = pair.key.start
                parts.append(.key(key))
                object.appendUnique(key, try convert(pair.value))
                parts.removeLast()
            }
            return .object(object)
        }
    }

    private func text(ofKey key: YAMLNode) throws(YAMLToJSONError) -> String {
        guard let scalar = key.scalar else {
            throw failure(.keyNotText("a \(key.kindName)"), at: key.start)
        }
        switch try resolve(key) {
        case .string(let text)?: return text
        case .null?, nil: throw failure(.keyNotText("null (quote it to use it as text)"), at: key.start)
        case .bool?: throw failure(.keyNotText("the boolean \(scalar.value) (quote it)"), at: key.start)
        case .number?: throw failure(.keyNotText("the number \(scalar.value) (quote it)"), at: key.start)
        }
    }

    private func resolve(_ node: YAMLNode) throws(YAMLToJSONError) -> ResolvedScalar? {
        do {
            return try node.resolvedScalar()
        } catch {
            throw failure(.scalar(error.message), at: error.mark)
        }
    }

    private func failure(_ problem: YAMLToJSONError.Problem, at mark: YAMLMark) -> YAMLToJSONError {
        YAMLToJSONError(problem, path: renderedPath, at: mark)
    }

    /// jq syntax: `.a.b[2]`, `.["a b"]`; `.` for the node converted.
    private var renderedPath: String {
        var path = base
        for part in parts {
            switch part {
            case .index(let index): path += "[\(index)]"
            case .key(let key) where Self.isPlainName(key): path += "." + key
            case .key(let key): path += "[\(JSON.string(key).compactText)]"
            }
        }
        if path.isEmpty { return "." }
        return path.hasPrefix("[") ? "." + path : path
    }

    /// Whether `key` can follow a `.` in a jq path: a letter or `_`, then letters, digits, `_`.
    private static func isPlainName(_ key: String) -> Bool {
        guard let first = key.utf8.first, isLetter(first) else { return false }
        return key.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
}
