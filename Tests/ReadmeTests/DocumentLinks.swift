import Foundation

/// A relative link of a Markdown file: `[text](target)` or a reference `[label]: target`,
/// outside code.
struct DocumentLink: Sendable, Equatable {
    /// The line it is written on.
    var line: Int
    /// The target as written: a path, a path with `#anchor`, or `#anchor` alone.
    var target: String
}

/// The links and anchors of Markdown text, read as GitHub renders them.
enum DocumentLinks {
    /// The relative links of the lines outside fenced blocks; links with a scheme (`https:`,
    /// `mailto:`) are left out, and so is anything inside an inline code span.
    static func relativeLinks(in prose: [DocumentLine]) -> [DocumentLink] {
        var links: [DocumentLink] = []
        for line in prose {
            let text = withoutCodeSpans(line.text)
            for match in text.matches(of: /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/) {
                links.append(DocumentLink(line: line.number, target: String(match.1)))
            }
            if let match = text.wholeMatch(of: /\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?.*/) {
                links.append(DocumentLink(line: line.number, target: String(match.1)))
            }
        }
        return links.filter { !$0.target.contains(/^[A-Za-z][A-Za-z0-9+.\-]*:/) }
    }

    /// The anchors of the headings (`#` to `######`), as GitHub makes them: lower case, only
    /// letters, digits, `_`, `-` and spaces kept, spaces as `-`; a repeated one gets `-1`, `-2`….
    static func anchors(in prose: [DocumentLine]) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        for line in prose {
            guard let heading = line.text.wholeMatch(of: /\s{0,3}#{1,6}\s+(.*?)\s*#*\s*/) else { continue }
            let slug = slug(String(heading.1))
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// A heading's anchor.
    static func slug(_ heading: String) -> String {
        // Link text stands for the link: `[The store](x.md)` is "The store".
        let text = heading.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.1) }
        let kept = text.lowercased().unicodeScalars.filter { scalar in
            scalar == " " || scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic
                || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    /// The text with every inline code span (`` `x` ``, ``` `` a`b `` ```) left out: a run of
    /// backticks opens a span that the next run of exactly as many closes.
    static func withoutCodeSpans(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var index = 0
        func run(at start: Int) -> Int {
            var end = start
            while end < characters.count, characters[end] == "`" { end += 1 }
            return end - start
        }
        while index < characters.count {
            guard characters[index] == "`" else {
                result.append(characters[index])
                index += 1
                continue
            }
            let length = run(at: index)
            var search = index + length
            var closing: Int?
            while search < characters.count {
                if characters[search] == "`" {
                    let found = run(at: search)
                    if found == length {
                        closing = search
                        break
                    }
                    search += found
                } else {
                    search += 1
                }
            }
            if let closing {
                index = closing + length
            } else {
                result += String(repeating: "`", count: length)
                index += length
            }
        }
        return result
    }
}
