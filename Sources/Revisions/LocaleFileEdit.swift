import Core
import Foundation

/// Edits the texts of a locale file (`Rules/locales/ru.yaml`) line by line: a key's line is
/// replaced (its `limit:` kept) or a new key's line appended to `texts:`, and every other line
/// (comments, the other keys) stays as written, so the change is a line or two in a diff.
public struct LocaleFileEdit {
    /// The file's lines.
    public private(set) var lines: [String]

    public init(_ text: String) {
        lines = text.components(separatedBy: "\n")
    }

    /// The file's text.
    public var text: String { lines.joined(separator: "\n") }

    /// The locale a file's text declares (`locale: ru`), if it is a locale file.
    public static func locale(of text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix("locale:") {
            let value = line.dropFirst("locale:".count).trimmingCharacters(in: .whitespaces)
            let code = value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            return code.isEmpty ? nil : code
        }
        return nil
    }

    /// The locale files among `files` (path → text) by locale, each locale's own file
    /// (`locales/ru.yaml`, the shortest path ending in `/<locale>.yaml`) first, then a
    /// feature's (`locales/journey/ru.yaml`).
    public static func files(in files: [String: String]) -> [String: [String]] {
        var byLocale: [String: [String]] = [:]
        for (path, text) in files where path.hasSuffix(".yaml") {
            if let code = locale(of: text) { byLocale[code, default: []].append(path) }
        }
        return byLocale.mapValues { paths in
            let rank = { (path: String) in (path.split(separator: "/").count, path) }
            return paths.sorted { rank($0) < rank($1) }
        }
    }

    /// The file of `paths` (one locale's, its own first) to write a key in: the one whose
    /// path ends `place` (where the key is written now), else the locale's own.
    public static func file(among paths: [String], holding place: String?) -> String? {
        paths.first { path in place.map { $0.hasSuffix(path) } ?? false } ?? paths.first
    }

    /// The index of the `texts:` line.
    private var textsLine: Int? { lines.firstIndex { $0.hasPrefix("texts:") } }

    /// The index of `key`'s line under `texts:`.
    private func line(of key: String) -> Int? {
        guard let start = textsLine else { return nil }
        for index in (start + 1)..<lines.count {
            let line = lines[index]
            if let first = line.first, first != " ", first != "#" { break }
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix(key) else { continue }
            let rest = trimmed.dropFirst(key.count)
            if rest.hasPrefix(":") { return index }
        }
        return nil
    }

    /// The key written on line `number` (1-based), when it is a key's line of `texts:`.
    public func key(atLine number: Int) -> String? {
        let index = number - 1
        guard let start = textsLine, index > start, index < lines.count else { return nil }
        let line = lines[index]
        guard line.hasPrefix(" ") else { return nil }
        let trimmed = line.drop { $0 == " " }
        guard !trimmed.hasPrefix("#"), let colon = trimmed.firstIndex(of: ":") else { return nil }
        return String(trimmed[..<colon])
    }

    /// Sets `key`'s text to `source`, keeping the `limit:` it had; a key the file lacks is
    /// appended at the end of `texts:`.
    public mutating func set(_ key: String, _ source: String, limit newLimit: Int? = nil) {
        let quoted = JSON.string(source).compactText
        if let index = line(of: key) {
            let indent = String(lines[index].prefix { $0 == " " })
            let limit = newLimit ?? Self.limit(in: lines[index])
            var end = index + 1
            while end < lines.count, lines[end].prefix(while: { $0 == " " }).count > indent.count { end += 1 }
            lines.replaceSubrange(index..<end, with: [indent + Self.entry(key, quoted, limit: limit)])
            return
        }
        guard let start = textsLine else {
            lines.append("texts:")
            lines.append("  " + Self.entry(key, quoted, limit: newLimit))
            return
        }
        var last = start
        for index in (start + 1)..<lines.count {
            let line = lines[index]
            if let first = line.first, first != " ", first != "#" { break }
            if line.hasPrefix(" "), !line.drop(while: { $0 == " " }).isEmpty { last = index }
        }
        let indent = last == start ? "  " : String(lines[last].prefix { $0 == " " })
        lines.insert(indent + Self.entry(key, quoted, limit: newLimit), at: last + 1)
    }

    private static func entry(_ key: String, _ quoted: String, limit: Int?) -> String {
        key + ": " + (limit.map { "{text: \(quoted), limit: \($0)}" } ?? quoted)
    }

    /// The `limit: N` written on a key's line.
    static func limit(in line: String) -> Int? {
        guard let match = line.firstMatch(of: #/limit:\s*(\d+)\s*\}\s*$/#) else { return nil }
        return Int(match.1)
    }
}
