import Core

/// Edits one experiment of an `experiments:` document's text line by line: a field's line is
/// replaced, added or removed, and every other line (comments, the metrics, the other
/// experiments) stays as written, so the change is a few lines in a diff.
struct ExperimentFileEdit {
    /// The document's lines.
    private(set) var lines: [String]
    /// The experiment's first line (0-based) and the column its fields start at (0-based).
    private let start: Int
    private let indent: Int

    /// The experiment that starts at `line`, `column` (1-based, as a source location gives them).
    init(_ text: String, line: Int, column: Int) {
        lines = text.components(separatedBy: "\n")
        start = max(0, line - 1)
        indent = max(0, column - 1)
    }

    /// The document's text.
    var text: String { lines.joined(separator: "\n") }

    /// Appends a new experiment with `fields` (name, value as YAML) to the list.
    static func appending(to text: String, fields: [(String, String)]) -> String {
        var body = text
        while body.hasSuffix("\n\n") { body.removeLast() }
        if !body.hasSuffix("\n") { body += "\n" }
        body += "\n"
        for (index, (name, value)) in fields.enumerated() {
            body += (index == 0 ? "  - " : "    ") + name + ": " + value + "\n"
        }
        return body
    }

    private func leadingSpaces(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    private func isBlankOrComment(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    /// The lines after `start` that belong to the experiment (its end, exclusive).
    private var end: Int {
        var last = start
        var index = start + 1
        while index < lines.count {
            let line = lines[index]
            if !isBlankOrComment(line) {
                guard leadingSpaces(line) >= indent else { break }
                last = index
            }
            index += 1
        }
        return last + 1
    }

    /// The line of field `name` of the experiment, if it has one.
    private func line(of name: String) -> Int? {
        for index in start..<end {
            let line = lines[index]
            guard line.count > indent else { continue }
            if index != start, leadingSpaces(line) != indent { continue }
            let rest = line.dropFirst(indent)
            if rest.hasPrefix(name + ":") { return index }
        }
        return nil
    }

    /// The lines after `line` that continue its value (more indented, or blank in between).
    private func continuation(after line: Int) -> Int {
        var count = 0
        var index = line + 1
        while index < end {
            let text = lines[index]
            if !isBlankOrComment(text) && leadingSpaces(text) <= indent { break }
            index += 1
            if !isBlankOrComment(text) { count = index - line - 1 }
        }
        return count
    }

    /// Sets field `name` to `value` (YAML text on one line); nil removes the field.
    mutating func set(_ name: String, _ value: String?) {
        if let index = line(of: name) {
            let extra = continuation(after: index)
            let prefix = String(lines[index].prefix(indent))
            if let value {
                lines.replaceSubrange(index...(index + extra), with: [prefix + name + ": " + value])
            } else if index != start {
                lines.removeSubrange(index...(index + extra))
            }
            return
        }
        guard let value else { return }
        let before = ["metrics", "guardrails"].compactMap(line(of:)).min()
        let at = before ?? end
        lines.insert(String(repeating: " ", count: indent) + name + ": " + value, at: at)
    }

    /// The field whose value `line` (1-based) is part of, for a diagnostic's pointer.
    func field(atLine line: Int) -> String? {
        let index = line - 1
        guard index >= start, index < end else { return nil }
        for candidate in stride(from: index, through: start, by: -1) {
            let text = lines[candidate]
            guard text.count > indent, candidate == start || leadingSpaces(text) == indent else { continue }
            let rest = text.dropFirst(indent)
            guard let colon = rest.firstIndex(of: ":") else { return nil }
            return String(rest[..<colon])
        }
        return nil
    }

    // MARK: Values as YAML

    /// A number as YAML writes it: `0.5`, `1`.
    static func number(_ value: Double) -> String { JSON.number(value).compactText }

    /// A flow list: `[a, b]`.
    static func list(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }

    /// A string, quoted (a JSON string is a YAML double-quoted scalar).
    static func quoted(_ text: String) -> String { JSON.string(text).compactText }
}
