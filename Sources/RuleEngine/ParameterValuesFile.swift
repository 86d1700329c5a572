import Core
import YAML

/// The values file, `Rules/params.yaml`, as text that tools edit: setting a value changes its
/// one line (or adds one), resetting it to its default removes it, and every other line —
/// comments, order, other values — stays as written, so a change is a one-line diff.
///
/// ```yaml
/// values:
///   recommendation:
///     by_branch_prefers: weakest_topic
/// ```
public struct ParameterValuesFile: Sendable {
    /// Its path inside the rules directory.
    public static let path = ParameterTable.valuesFile

    /// Why the text cannot be edited.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The text: as read, or the starting text of a file that did not exist.
    public private(set) var text: String

    /// The file's text, or nil for a rules folder that has none yet.
    public init(_ text: String?) {
        self.text = text ?? Self.newFile
    }

    static let newFile = """
        # The values of the parameters that rules and documents declare under `params:` (see
        # `journey params`). A parameter not given here has its default.
        values:

        """

    /// Sets `owner.name` to `value` as `declaration` writes it (nil: removes it, so that the
    /// default applies).
    public mutating func set(_ declaration: ParameterDeclaration, to value: ParameterValue?) throws(Problem) {
        try set(owner: declaration.owner, name: declaration.name, text: value.map { Self.yamlText(declaration, $0) })
    }

    /// Where `owner.name` is set in the text (its value's line and column); nil when it is not.
    public func location(owner: String, name: String) -> (line: Int, column: Int)? {
        guard let values = try? valuesNode(),
            let entry = values[owner]?.pairs?.first(where: { $0.key.scalar?.value == name })
        else { return nil }
        return (entry.value.start.line, entry.value.start.column)
    }

    /// `owner.name` of the value written on `line`, if one is.
    public func name(atLine line: Int) -> String? {
        guard let owners = (try? valuesNode())?.pairs else { return nil }
        for owner in owners {
            for entry in owner.value.pairs ?? [] where entry.key.start.line <= line && line <= entry.value.end.line {
                return "\(owner.key.scalar?.value ?? "").\(entry.key.scalar?.value ?? "")"
            }
        }
        return nil
    }

    // MARK: Editing

    private mutating func set(owner: String, name: String, text value: String?) throws(Problem) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let values = try valuesNode() else {
            // `values:` with nothing under it.
            guard let value else { return }
            let at = try valuesLine(lines)
            lines.insert(contentsOf: ["  \(owner):", "    \(name): \(value)"], at: at + 1)
            return finish(lines)
        }
        guard let owners = values.pairs else {
            throw Problem(description: "`values` must map ids to their parameters' values")
        }
        guard let ownerPair = owners.first(where: { $0.key.scalar?.value == owner }) else {
            guard let value else { return }
            let indent = (owners.first?.key.start.column ?? 3) - 1
            let after = owners.map { Self.lastLine($0.value) }.max() ?? values.start.line
            lines.insert(
                contentsOf: [Self.spaces(indent) + "\(owner):", Self.spaces(indent + 2) + "\(name): \(value)"],
                at: after)
            return finish(lines)
        }
        guard let entries = ownerPair.value.pairs, ownerPair.value.start.line > ownerPair.key.start.line else {
            throw Problem(
                description:
                    "`\(owner)` in \(Self.path) is not written one value a line (`name: value` under `\(owner):`); write it so, then set it again"
            )
        }
        let indent = (entries.first?.key.start.column ?? ownerPair.key.start.column + 2) - 1
        guard let entry = entries.first(where: { $0.key.scalar?.value == name }) else {
            guard let value else { return }
            lines.insert(Self.spaces(indent) + "\(name): \(value)", at: Self.lastLine(ownerPair.value))
            return finish(lines)
        }
        let first = entry.key.start.line - 1
        let last = Self.lastLine(entry.value) - 1
        guard let value else {
            let removeOwner = entries.count == 1
            let from = removeOwner ? ownerPair.key.start.line - 1 : first
            lines.removeSubrange(from...last)
            return finish(lines)
        }
        lines.replaceSubrange(first...last, with: [Self.spaces(indent) + "\(name): \(value)"])
        finish(lines)
    }

    private mutating func finish(_ lines: [String]) {
        text = lines.joined(separator: "\n")
    }

    /// The `values` node; nil when it holds nothing (`values:` alone).
    private func valuesNode() throws(Problem) -> YAMLNode? {
        let root: YAMLNode?
        do {
            root = try YAMLParser.parse(text).first
        } catch {
            throw Problem(description: "\(Self.path) is not YAML: \(error.description)")
        }
        guard let root, let values = root["values"], root.pairs?.count == 1 else {
            throw Problem(description: "\(Self.path) must hold one mapping, `values:`")
        }
        if values.scalar != nil, case .null? = try? values.resolvedScalar() { return nil }
        return values
    }

    /// The 0-based index of the `values:` line.
    private func valuesLine(_ lines: [String]) throws(Problem) -> Int {
        guard let index = lines.firstIndex(where: { $0.hasPrefix("values:") }) else {
            throw Problem(description: "\(Self.path) has no `values:` line")
        }
        return index
    }

    /// The last line (1-based) a node's text is on: a mapping's end mark is the start of the
    /// line after it.
    private static func lastLine(_ node: YAMLNode) -> Int {
        if let pairs = node.pairs, let last = pairs.last { return lastLine(last.value) }
        return node.end.column == 1 && node.end.line > node.start.line ? node.end.line - 1 : node.end.line
    }

    /// A value written as plain text (on a command line), read as the values file reads it:
    /// `7` a number, `true` a boolean, anything else text.
    public static func readValue(_ text: String) -> JSON {
        let mark = YAMLMark(line: 1, column: 1)
        switch try? YAMLNode(content: .scalar(YAMLScalar(text)), start: mark, end: mark).resolvedScalar() {
        case .bool(let b)?: return .bool(b)
        case .number(let n)?: return .number(n)
        case .null?: return .null
        default: return .string(text)
        }
    }

    /// Whether `text`, written plain, reads back as text (not a number, a boolean or null).
    private static func resolvesAsText(_ text: String) -> Bool {
        let mark = YAMLMark(line: 1, column: 1)
        let node = YAMLNode(content: .scalar(YAMLScalar(text)), start: mark, end: mark)
        if case .string? = try? node.resolvedScalar() { return true }
        return false
    }

    private static func spaces(_ count: Int) -> String { String(repeating: " ", count: max(count, 0)) }

    /// The value as the file writes it: `30d`, `25%`, `weakest_topic`, `"19:00"`, `60`.
    static func yamlText(_ declaration: ParameterDeclaration, _ value: ParameterValue) -> String {
        if declaration.type == .percent, let n = value.json.numberValue { return "\(numberText(n))%" }
        switch value.json {
        case .string(let text):
            let plain =
                text.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || "_.-".unicodeScalars.contains($0)
                } && !text.isEmpty && text.first != "-" && resolvesAsText(text)
            return plain ? text : JSON.string(text).compactText
        default:
            return value.json.compactText
        }
    }
}
