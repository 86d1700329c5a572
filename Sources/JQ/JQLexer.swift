/// A token of jq source, as far as the sandbox needs to see it.
struct JQToken: Equatable {
    enum Kind: Equatable {
        /// `name` or `module::name`.
        case identifier
        /// `.name`
        case field
        /// `$name`
        case variable
        /// A whole string literal; `interpolated` when it contains `\(...)`.
        case string(value: String, interpolated: Bool)
        case number
        /// `@base64`-style format.
        case format
        /// Any other character (`;`, `(`, `|`, …), one at a time.
        case punctuation
    }

    var kind: Kind
    var text: String
    /// 1-based line and column (in characters) of the token's first character.
    var line: Int
    var column: Int
    /// UTF-8 offsets of the token in the source.
    var start: Int
    var end: Int
}

/// A small lexer for jq: enough to read import directives and find names in library files.
///
/// It understands comments, string literals with escapes and nested `\(...)` interpolation
/// (whose tokens it emits before the string token itself), identifiers, fields and variables.
struct JQLexer {
    /// A lexing problem (an unterminated string); libjq reports the same program's errors too.
    struct Problem: Error, Equatable {
        var message: String
        var line: Int
        var column: Int
    }

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var tokens: [JQToken] = []

    init(_ source: String) {
        self.bytes = Array(source.utf8)
    }

    /// All tokens of `source`, comments and white space left out.
    static func tokenize(_ source: String) throws(Problem) -> [JQToken] {
        var lexer = JQLexer(source)
        try lexer.lexCode(untilClosingParenthesis: false)
        return lexer.tokens
    }

    private var column: Int {
        // Characters, not bytes: count UTF-8 lead bytes since the start of the line.
        var characters = 0
        for i in lineStart..<position where bytes[i] & 0xC0 != 0x80 { characters += 1 }
        return characters + 1
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        let at = position + offset
        return at < bytes.count ? bytes[at] : nil
    }

    private mutating func advance() {
        if bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        position += 1
    }

    private static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x5F
    }

    private static func isIdentifierPart(_ c: UInt8) -> Bool {
        isIdentifierStart(c) || (c >= 0x30 && c <= 0x39)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private mutating func emit(_ kind: JQToken.Kind, from start: Int, line: Int, column: Int) {
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        tokens.append(JQToken(kind: kind, text: text, line: line, column: column, start: start, end: position))
    }

    /// Lexes code; inside an interpolation, stops after the `)` that closes it.
    private mutating func lexCode(untilClosingParenthesis: Bool) throws(Problem) {
        var depth = 0
        while let c = peek() {
            let start = position
            let startLine = line
            let startColumn = column
            switch c {
            case 0x20, 0x09, 0x0A, 0x0D:
                advance()
            case UInt8(ascii: "#"):
                while let d = peek(), d != 0x0A { advance() }
            case UInt8(ascii: "\""):
                try lexString()
            case UInt8(ascii: "$") where peek(1).map(Self.isIdentifierStart) == true:
                advance()
                lexName()
                emit(.variable, from: start, line: startLine, column: startColumn)
            case UInt8(ascii: "@") where peek(1).map(Self.isIdentifierStart) == true:
                advance()
                lexName()
                emit(.format, from: start, line: startLine, column: startColumn)
            case UInt8(ascii: ".") where peek(1).map(Self.isIdentifierStart) == true:
                advance()
                lexName()
                emit(.field, from: start, line: startLine, column: startColumn)
            case UInt8(ascii: ".") where peek(1).map(Self.isDigit) == true:
                lexNumber()
                emit(.number, from: start, line: startLine, column: startColumn)
            case _ where Self.isDigit(c):
                lexNumber()
                emit(.number, from: start, line: startLine, column: startColumn)
            case _ where Self.isIdentifierStart(c):
                lexName()
                // Module-qualified names: a::b::c
                while peek() == UInt8(ascii: ":"), peek(1) == UInt8(ascii: ":"),
                    peek(2).map(Self.isIdentifierStart) == true
                {
                    advance()
                    advance()
                    lexName()
                }
                emit(.identifier, from: start, line: startLine, column: startColumn)
            default:
                if c == UInt8(ascii: "(") { depth += 1 }
                if c == UInt8(ascii: ")") {
                    if untilClosingParenthesis && depth == 0 {
                        advance()
                        return
                    }
                    depth -= 1
                }
                // One character (a whole UTF-8 sequence) per punctuation token.
                advance()
                while let d = peek(), d & 0xC0 == 0x80 { advance() }
                emit(.punctuation, from: start, line: startLine, column: startColumn)
            }
        }
        if untilClosingParenthesis {
            throw Problem(message: "unterminated string interpolation", line: line, column: column)
        }
    }

    private mutating func lexName() {
        while let c = peek(), Self.isIdentifierPart(c) { advance() }
    }

    private mutating func lexNumber() {
        while let c = peek(), Self.isDigit(c) || c == UInt8(ascii: ".") { advance() }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            advance()
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { advance() }
            while let c = peek(), Self.isDigit(c) { advance() }
        }
    }

    private mutating func lexString() throws(Problem) {
        let start = position
        let startLine = line
        let startColumn = column
        advance()  // opening quote
        var value: [UInt8] = []
        var interpolated = false
        while true {
            guard let c = peek() else {
                throw Problem(message: "unterminated string", line: startLine, column: startColumn)
            }
            if c == UInt8(ascii: "\"") {
                advance()
                break
            }
            if c != UInt8(ascii: "\\") {
                value.append(c)
                advance()
                continue
            }
            advance()
            guard let escaped = peek() else { continue }
            advance()
            switch escaped {
            case UInt8(ascii: "("):
                interpolated = true
                try lexCode(untilClosingParenthesis: true)
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "t"): value.append(0x09)
            case UInt8(ascii: "r"): value.append(0x0D)
            case UInt8(ascii: "b"): value.append(0x08)
            case UInt8(ascii: "f"): value.append(0x0C)
            default: value.append(escaped)
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        tokens.append(
            JQToken(
                kind: .string(value: String(decoding: value, as: UTF8.self), interpolated: interpolated),
                text: text, line: startLine, column: startColumn, start: start, end: position))
    }
}
