import Foundation

/// The output a documented example shows, as a pattern over the lines a command printed.
///
/// - A line that is only `…` (indentation allowed) matches any number of lines, none included.
/// - `…` inside a line matches any text within that one line.
/// - Any other text must be exactly what was printed.
/// - Trailing whitespace of every line, and trailing blank lines, are ignored on both sides.
struct OutputPattern {
    /// The wildcard: U+2026 HORIZONTAL ELLIPSIS.
    static let wildcard = "…"

    private enum Element {
        /// Any number of lines.
        case anyLines
        /// One line: literal pieces with a wildcard between each two.
        case line(pieces: [Substring])
    }

    private let elements: [Element]
    /// The document line each element came from.
    private let documentLines: [DocumentLine]

    /// The pattern for a documented example's output lines.
    init(_ lines: [DocumentLine]) {
        documentLines = lines.map { DocumentLine(number: $0.number, text: Self.trimmedTrailing($0.text)) }
        elements = documentLines.map { line in
            line.text.trimmingCharacters(in: .whitespaces) == Self.wildcard
                ? .anyLines : .line(pieces: line.text.split(separator: Self.wildcard, omittingEmptySubsequences: false))
        }
    }

    /// Where a match failed: the document line the output stopped agreeing with, and the output
    /// line there (nil when the output had ended).
    struct Mismatch {
        /// The document line that could not be matched.
        var documentLine: DocumentLine?
        /// The 1-based output line it was compared with.
        var outputLineNumber: Int
        /// That output line, or nil past the end of the output.
        var outputLine: String?
    }

    /// Matches the output text; nil when it matches, else the furthest point where it did not.
    func mismatch(in output: String) -> Mismatch? {
        let actual = Self.lines(of: output)
        var failedStates = Set<Int>()
        var furthest = Mismatch(documentLine: nil, outputLineNumber: 1, outputLine: nil)
        var furthestElement = -1

        /// Whether elements[element...] match actual[line...]; remembers the deepest failure.
        func matches(_ element: Int, _ line: Int) -> Bool {
            let state = element * (actual.count + 1) + line
            if failedStates.contains(state) { return false }
            let result: Bool
            if element == elements.count {
                result = line == actual.count
                if !result, element > furthestElement {
                    furthestElement = element
                    furthest = Mismatch(documentLine: nil, outputLineNumber: line + 1, outputLine: actual[line])
                }
            } else {
                switch elements[element] {
                case .anyLines:
                    result = (line...actual.count).contains { matches(element + 1, $0) }
                case .line(let pieces):
                    if line < actual.count, Self.line(actual[line], matches: pieces) {
                        result = matches(element + 1, line + 1)
                    } else {
                        result = false
                        if element > furthestElement {
                            furthestElement = element
                            furthest = Mismatch(
                                documentLine: documentLines[element], outputLineNumber: line + 1,
                                outputLine: line < actual.count ? actual[line] : nil)
                        }
                    }
                }
            }
            if !result { failedStates.insert(state) }
            return result
        }

        return matches(0, 0) ? nil : furthest
    }

    /// Output text as lines, trailing whitespace and trailing blank lines dropped.
    static func lines(of output: String) -> [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map { trimmedTrailing(String($0)) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Whether a line consists of the pieces in order, anything in between.
    private static func line(_ text: String, matches pieces: [Substring]) -> Bool {
        guard let first = pieces.first, let last = pieces.last else { return text.isEmpty }
        if pieces.count == 1 { return text == first }
        guard text.hasPrefix(first) else { return false }
        var rest = text.dropFirst(first.count)
        for piece in pieces.dropFirst().dropLast() {
            // The leftmost occurrence leaves the most room for the pieces after it.
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(last)
    }

    private static func trimmedTrailing(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
