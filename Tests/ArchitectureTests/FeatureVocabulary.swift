import Foundation

/// What a feature owns in the store: the tables its migrations create, and the members its store
/// declares (the public functions of its `extension Store` and `extension StoreReader`), read from its
/// sources. Nothing below the features may name them.
struct FeatureVocabulary {
    var tables: Set<String> = []
    var storeMembers: Set<String> = []

    /// The vocabulary of the Swift files under `folder`.
    init(folder: String) throws {
        for text in try Self.swiftFiles(under: folder) {
            for match in text.matches(of: #/CREATE TABLE (\w+)/#) { tables.insert(String(match.output.1)) }
            let code = Self.withoutStringsAndComments(text)
            for match in code.matches(of: #/extension (Store|StoreReader)\b[^{]*\{/#) {
                let body = Self.body(of: code[match.range.upperBound...])
                for function in body.matches(of: #/public func (\w+)/#) {
                    storeMembers.insert(String(function.output.1))
                }
            }
        }
    }

    /// Where the code (comments left out) of the files under `folder` names a table or member:
    /// `file: word`, for each one.
    func namings(under folder: String) throws -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let code = Self.withoutComments(try String(contentsOfFile: folder + "/" + relative, encoding: .utf8))
            for table in tables.sorted() where code.contains(try Regex("\\b\(table)\\b")) {
                found.append("\(relative): \(table)")
            }
            for member in storeMembers.sorted() where code.contains(try Regex("\\.\(member)\\(")) {
                found.append("\(relative): .\(member)(")
            }
        }
        return found
    }

    static func swiftFiles(under folder: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var texts: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            texts.append(try String(contentsOfFile: folder + "/" + relative, encoding: .utf8))
        }
        return texts
    }

    /// `text` up to the brace that closes the one just before it.
    static func body(of text: Substring) -> Substring {
        var depth = 1
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "{" { depth += 1 }
            if text[index] == "}" {
                depth -= 1
                if depth == 0 { return text[..<index] }
            }
            index = text.index(after: index)
        }
        return text
    }

    /// `text` without `//` comments (to the end of their line).
    static func withoutComments(_ text: String) -> String {
        text.replacing(#/\/\/[^\n]*/#, with: "")
    }

    /// `text` without comments and string literals (whose braces are not the code's).
    static func withoutStringsAndComments(_ text: String) -> String {
        withoutComments(
            text.replacing(#/"""[\s\S]*?"""/#, with: "\"\"").replacing(#/"(?:\\.|[^"\\\n])*"/#, with: "\"\""))
    }
}
