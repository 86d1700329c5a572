import Core

/// Edits a flow document's text line by line: the `version:` line, and one variant's list of
/// steps rebuilt from the blocks of the steps it keeps (copied as written, comments included)
/// and the lines of the steps it adds, so the change is those lines in a diff.
struct FlowFileEdit {
    private(set) var lines: [String]

    init(_ text: String) { lines = text.components(separatedBy: "\n") }

    var text: String { lines.joined(separator: "\n") }

    /// Sets the top-level `version:` (quoted, so 1.10 stays text).
    mutating func setVersion(_ version: String) {
        let line = "version: " + JSON.string(version).compactText
        if let index = lines.firstIndex(where: { $0.hasPrefix("version:") }) {
            lines[index] = line
        } else if let flow = lines.firstIndex(where: { $0.hasPrefix("flow:") }) {
            lines.insert(line, at: flow + 1)
        }
    }

    /// Sets the top-level `starts_on:` (after `version:` when the flow had none).
    mutating func setStartsOn(_ events: [String]) {
        let line = "starts_on: [" + events.joined(separator: ", ") + "]"
        if let index = lines.firstIndex(where: { $0.hasPrefix("starts_on:") }) {
            var end = index + 1
            while end < lines.count, lines[end].hasPrefix(" ") || lines[end].hasPrefix("-") { end += 1 }
            lines.replaceSubrange(index..<end, with: [line])
        } else if let version = lines.firstIndex(where: { $0.hasPrefix("version:") }) {
            lines.insert(line, at: version + 1)
        }
    }

    private func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    private func isBlankOrComment(_ line: String) -> Bool {
        let rest = line.drop { $0 == " " }
        return rest.isEmpty || rest.hasPrefix("#")
    }

    /// The lines (0-based, end exclusive) of the step whose `- id:` is on `line` (1-based).
    func block(atLine line: Int) -> Range<Int> {
        let start = max(0, line - 1)
        guard start < lines.count else { return start..<start }
        let dash = indent(lines[start])
        var end = start + 1
        var last = start + 1
        while end < lines.count {
            let text = lines[end]
            if !isBlankOrComment(text) {
                guard indent(text) > dash else { break }
                last = end + 1
            }
            end += 1
        }
        return start..<last
    }

    /// The text of a step's block, for copying it into the new list.
    func lines(of block: Range<Int>) -> [String] { Array(lines[block]) }

    /// The dash's indentation of the step on `line` (1-based).
    func dashIndent(atLine line: Int) -> Int {
        line - 1 < lines.count ? indent(lines[line - 1]) : 4
    }

    /// Replaces `range` (a variant's steps) with `replacement`.
    mutating func replace(_ range: Range<Int>, with replacement: [String]) {
        lines.replaceSubrange(range, with: replacement)
    }
}

/// A step a PM adds: what the console's form gives, written as a flow document's step.
struct NewFlowStep {
    var id: String
    var target: String
    var shape: OnboardingStep.Shape
    var position: OnboardingStep.TooltipPosition
    var tooltipKey: String
    /// The YAML of the completion trigger (`{tap: "add_button"}`).
    var trigger: String
    var canSkip: Bool

    /// The step's lines, its dash at `indent` spaces.
    func lines(indent: Int) -> [String] {
        let dash = String(repeating: " ", count: indent)
        let field = dash + "  "
        let highlight = shape == .circle ? "circle" : "{shape: rectangle, corner_radius: 12}"
        return [
            dash + "- id: " + id,
            field + "target_element_id: " + JSON.string(target).compactText,
            field + "highlight: " + highlight,
            field + "tooltip: {key: \(tooltipKey), position: \(position.rawValue)}",
            field + "completion_trigger: " + trigger,
            field + "can_skip: " + (canSkip ? "true" : "false"),
        ]
    }
}
