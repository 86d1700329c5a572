/// Reads the message format (see ``Message``) into parts, character by character.
struct MessageParser {
    private let characters: [Character]
    private var index = 0

    init(_ source: String) {
        characters = Array(source)
    }

    mutating func parseAll() throws(MessageSyntaxError) -> [Message.Part] {
        let parts = try parseParts(inPlural: false)
        if index < characters.count {
            throw fail("`}` closes nothing (write '}' for the character)")
        }
        return parts
    }

    /// Parts up to an unmatched `}` or the end.
    private mutating func parseParts(inPlural: Bool) throws(MessageSyntaxError) -> [Message.Part] {
        var parts: [Message.Part] = []
        var text = ""
        func flush() {
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "'":
                if index + 2 < characters.count, "{}#".contains(characters[index + 1]), characters[index + 2] == "'" {
                    text.append(characters[index + 1])
                    index += 3
                } else {
                    text.append(character)
                    index += 1
                }
            case "#" where inPlural:
                flush()
                parts.append(.number)
                index += 1
            case "{":
                flush()
                parts.append(try parsePlaceholder())
            case "}":
                flush()
                return parts
            default:
                text.append(character)
                index += 1
            }
        }
        flush()
        return parts
    }

    /// `{name}` or `{name, plural, …}`, from its `{`.
    private mutating func parsePlaceholder() throws(MessageSyntaxError) -> Message.Part {
        let start = index
        index += 1
        skipSpaces()
        let name = word()
        guard !name.isEmpty else {
            throw fail(
                "`{` must start a placeholder: `{name}` or `{count, plural, …}` (write '{' for the character)",
                at: start)
        }
        guard name.first!.isLetter || name.first == "_" else {
            throw fail("placeholder name `\(name)` must start with a letter", at: start)
        }
        skipSpaces()
        if peek == "}" {
            index += 1
            return .argument(name)
        }
        guard peek == "," else { throw fail("expected `}` or `, plural,` after `{\(name)`") }
        index += 1
        skipSpaces()
        let kind = word()
        guard kind == "plural" else {
            throw fail("`{\(name), \(kind)…}`: the only kind is `plural` (`{\(name), plural, one {…} other {…}}`)")
        }
        skipSpaces()
        guard peek == "," else { throw fail("expected `,` after `{\(name), plural`") }
        index += 1
        var plural = Message.Plural(argument: name, exact: [], forms: [:])
        while true {
            skipSpaces()
            if peek == "}" {
                index += 1
                break
            }
            guard peek != nil else { throw fail("`{\(name), plural, …` is not closed with `}`", at: start) }
            let selectorStart = index
            let selector = word()
            skipSpaces()
            guard peek == "{" else {
                throw fail(
                    selector.isEmpty
                        ? "expected a plural form (zero, one, two, few, many, other or =N)"
                        : "expected `{` after the plural form `\(selector)`")
            }
            index += 1
            let branch = try parseParts(inPlural: true)
            guard peek == "}" else { throw fail("the `\(selector)` form is not closed with `}`", at: selectorStart) }
            index += 1
            if selector.hasPrefix("="), let value = Double(selector.dropFirst()) {
                guard !plural.exact.contains(where: { $0.value == value }) else {
                    throw fail("the form `\(selector)` is given twice", at: selectorStart)
                }
                plural.exact.append((value, branch))
            } else if let category = PluralCategory(rawValue: selector) {
                guard plural.forms[category] == nil else {
                    throw fail("the form `\(selector)` is given twice", at: selectorStart)
                }
                plural.forms[category] = branch
            } else {
                throw fail(
                    "`\(selector)` is not a plural form: zero, one, two, few, many, other or =N", at: selectorStart)
            }
        }
        guard plural.forms[.other] != nil else {
            throw fail("`{\(name), plural, …}` has no `other` form (every plural needs one)", at: start)
        }
        return .plural(plural)
    }

    private var peek: Character? { index < characters.count ? characters[index] : nil }

    private mutating func skipSpaces() {
        while let character = peek, character.isWhitespace { index += 1 }
    }

    /// Letters, digits, `_`, `.`, `=`, `-`.
    private mutating func word() -> String {
        var word = ""
        while let character = peek, character.isLetter || character.isNumber || "_.=-".contains(character) {
            word.append(character)
            index += 1
        }
        return word
    }

    private func fail(_ message: String, at position: Int? = nil) -> MessageSyntaxError {
        MessageSyntaxError(message: message, offset: (position ?? index) + 1)
    }
}
