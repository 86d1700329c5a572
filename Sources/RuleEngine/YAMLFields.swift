import Core
import JQ
import YAML

/// The fields of one YAML mapping in a rule file, read strictly: a key that is not allowed is
/// reported (with the closest allowed one), as are duplicate keys and values of the wrong type.
///
/// YAML, not JSON: a value keeps its place in the file (every problem is a diagnostic at its
/// line and column) and its scalar style (a jq expression is mapped back to the file), so this
/// reader walks YAML nodes. Its problems are ``Core/FieldError``s all the same (the codes and
/// wording of ``Core/FieldReader``), rendered by ``DiagnosticCollector/error(_:_:at:)``.
public struct YAMLFields {
    public let node: YAMLNode
    public let file: String
    /// What the mapping is, for messages: `rule`, `test`.
    let what: String
    /// The allowed fields present, by name.
    public private(set) var values: [String: YAMLNode] = [:]
    private let collector: DiagnosticCollector

    /// Nil (with a diagnostic) when `node` is not a mapping.
    init?(_ node: YAMLNode, file: String, what: String, allowed: [String], collector: DiagnosticCollector) {
        self.node = node
        self.file = file
        self.what = what
        self.collector = collector
        guard let pairs = node.pairs else {
            collector.error(
                "invalid_type", "a \(what) must be a mapping of fields, found a \(node.kindName)",
                at: SourceLocation(file: file, node.start))
            return nil
        }
        for pair in pairs {
            guard let key = pair.key.scalar?.value else {
                collector.error("invalid_type", "field names must be plain text", at: location(pair.key))
                continue
            }
            if values[key] != nil {
                collector.error("duplicate_field", "`\(key)` is given twice in this \(what)", at: location(pair.key))
                continue
            }
            guard allowed.contains(key) else {
                var message = "unknown field `\(key)` in \(what)"
                if let suggestion = closestMatch(to: key, in: allowed) {
                    message += "; did you mean `\(suggestion)`?"
                } else {
                    message += "; allowed fields: \(listing(allowed, conjunction: "and"))"
                }
                collector.error(
                    FieldError(.unknown, at: Self.path(key), "is not a field of a \(what)", known: allowed), message,
                    at: location(pair.key))
                continue
            }
            values[key] = pair.value
        }
    }

    public func location(_ node: YAMLNode) -> SourceLocation {
        SourceLocation(file: file, node.start)
    }

    public var start: SourceLocation { location(node) }

    /// Where the value of the field `key` is; where the mapping starts when it is absent.
    public func location(of key: String) -> SourceLocation {
        values[key].map(location) ?? start
    }

    public func has(_ key: String) -> Bool { values[key] != nil }

    /// Reports a missing required field.
    public func missing(_ key: String, _ hint: String = "") {
        collector.error(
            FieldError(.missing, at: Self.path(key), "is required"),
            "\(what) is missing `\(key)`\(hint.isEmpty ? "" : "; \(hint)")", at: start)
    }

    /// Reports the field `key`'s problem at `node`: `` `key` <problem> ``.
    private func fail(_ key: String, _ code: FieldError.Code, _ problem: String, at node: YAMLNode) {
        collector.error(FieldError(code, at: Self.path(key), problem), at: location(node))
    }

    /// The pointer of the field `key` in this mapping.
    static func path(_ key: String) -> String { JSONPointer.appending(key, to: "") }

    /// A string field. Numbers and booleans are refused: ids and kinds are text.
    public func string(_ key: String, required: Bool = false) -> (value: String, node: YAMLNode)? {
        guard let value = values[key] else {
            if required { missing(key) }
            return nil
        }
        guard let scalar = value.scalar, (try? value.resolvedScalar()).flatMap({ $0 }).map(isString) ?? false else {
            fail(key, .wrongType, "must be text, found \(describe(value))", at: value)
            return nil
        }
        return (scalar.value, value)
    }

    /// A text field that is an id by the one rule (``Core/Identifier``: 1 to 128 bytes, no
    /// control characters), as the events and routes that will name it are read.
    public func identifier(_ key: String, required: Bool = false) -> (value: String, node: YAMLNode)? {
        guard let (text, node) = string(key, required: required) else { return nil }
        if let problem = Identifier.problem(text) {
            fail(key, .invalid, "\(problem.requirement) (it is an id)", at: node)
            return nil
        }
        return (text, node)
    }

    /// A boolean field.
    public func bool(_ key: String) -> Bool? {
        guard let value = values[key] else { return nil }
        guard case .bool(let b)? = try? value.resolvedScalar() else {
            fail(key, .wrongType, "must be true or false, found \(describe(value))", at: value)
            return nil
        }
        return b
    }

    /// A number field within `range` (inclusive).
    public func number(_ key: String, within range: ClosedRange<Double>? = nil) -> (value: Double, node: YAMLNode)? {
        guard let value = values[key] else { return nil }
        guard case .number(let n)? = try? value.resolvedScalar(), n.isFinite else {
            fail(key, .wrongType, "must be a number, found \(describe(value))", at: value)
            return nil
        }
        if let range, !range.contains(n) {
            fail(
                key, .outOfRange,
                "must be between \(format(range.lowerBound)) and \(format(range.upperBound)), found \(format(n))",
                at: value)
            return nil
        }
        return (n, value)
    }

    /// A whole-number field within `range` (inclusive).
    public func integer(_ key: String, within range: ClosedRange<Int>) -> (value: Int, node: YAMLNode)? {
        guard let (n, node) = number(key) else { return nil }
        guard n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            fail(
                key, .outOfRange,
                "must be a whole number from \(range.lowerBound) to \(range.upperBound), found \(format(n))", at: node)
            return nil
        }
        return (Int(n), node)
    }

    /// A list of texts (a single text is refused: lists are written as lists).
    public func strings(_ key: String) -> [(value: String, node: YAMLNode)]? {
        guard let value = values[key] else { return nil }
        guard let items = value.items else {
            fail(key, .wrongType, "must be a list of texts, found \(describe(value))", at: value)
            return nil
        }
        var result: [(value: String, node: YAMLNode)] = []
        for item in items {
            guard let scalar = item.scalar, case .string? = try? item.resolvedScalar() else {
                collector.error(
                    FieldError(.wrongType, at: Self.path(key), "must hold texts only, found \(describe(item))"),
                    "every item of `\(key)` must be text, found \(describe(item))", at: location(item))
                return nil
            }
            result.append((scalar.value, item))
        }
        return result
    }

    /// A timestamp field (RFC 3339 with an offset, e.g. `2026-12-01T00:00:00+01:00`).
    public func timestamp(_ key: String) -> (value: Double, node: YAMLNode)? {
        guard let (text, node) = string(key) else { return nil }
        guard let seconds = Timestamp.parse(text) else {
            fail(
                key, .invalid, "must be a time with its offset, such as 2026-12-01T00:00:00Z, found `\(text)`", at: node
            )
            return nil
        }
        return (seconds, node)
    }

    private func format(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
    }

    /// A duration field (`250ms`, `5s`) within `range`.
    public func duration(_ key: String, within range: ClosedRange<Duration>) -> Duration? {
        guard let (text, node) = string(key) else { return nil }
        guard let duration = DurationText.parse(text) else {
            fail(key, .invalid, "must be a duration such as `250ms`, `5s` or `2m`, found `\(text)`", at: node)
            return nil
        }
        guard range.contains(duration) else {
            fail(
                key, .outOfRange,
                "must be between \(DurationText.format(range.lowerBound)) and \(DurationText.format(range.upperBound)), found `\(text)`",
                at: node)
            return nil
        }
        return duration
    }

    /// A jq expression field: the scalar's text whatever its style, mapped back to the file.
    public func expression(_ key: String, lines: [Substring]) -> Expression? {
        guard let value = values[key] else { return nil }
        guard let scalar = value.scalar else {
            fail(key, .wrongType, "must be a jq expression (text), found a \(value.kindName)", at: value)
            return nil
        }
        return makeExpression(scalar, node: value, file: file, lines: lines)
    }

    /// Any value as JSON, by the one strict conversion (``YAML/YAMLNode/json(path:)``); a
    /// problem is reported with its path from this mapping (`.input.a`).
    public func json(_ key: String) -> JSON? {
        guard let value = values[key] else { return nil }
        do {
            return try value.json(path: "." + key)
        } catch {
            collector.error("invalid_value", error.message, at: SourceLocation(file: file, error.mark))
            return nil
        }
    }

    private func isString(_ resolved: ResolvedScalar) -> Bool {
        if case .string = resolved { return true }
        return false
    }

    private func describe(_ node: YAMLNode) -> String {
        guard let scalar = node.scalar else { return "a \(node.kindName)" }
        switch try? node.resolvedScalar() {
        case .null?: return "nothing (null)"
        case .bool(let b)?: return "\(b)"
        case .number?: return "the number \(scalar.value)"
        default: return "`\(scalar.value)`"
        }
    }
}

/// The ``Expression`` of a scalar, with the column its content starts at in the file.
func makeExpression(_ scalar: YAMLScalar, node: YAMLNode, file: String, lines: [Substring]) -> Expression {
    let start = SourceLocation(file: file, node.start)
    var contentColumn = node.start.column
    switch scalar.style {
    case .literal, .folded:
        // The first non-blank line after the indicator sets the block's indentation.
        var lineIndex = node.start.line  // 0-based index of the next line
        while lineIndex < lines.count, lines[lineIndex].allSatisfy({ $0 == " " }) { lineIndex += 1 }
        if lineIndex < lines.count {
            contentColumn = lines[lineIndex].prefix { $0 == " " }.count + 1
        }
    case .singleQuoted, .doubleQuoted:
        contentColumn += 1
    case .plain:
        break
    }
    return Expression(source: scalar.value, start: start, isBlock: scalar.isBlock, contentColumn: contentColumn)
}
