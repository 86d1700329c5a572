/// Where a jq program reads a field of a variable: `$params.window` (also `$params."window"`
/// and `$params["window"]`) reads `window`.
public struct JQVariableRead: Sendable, Equatable {
    /// The field read; nil where the variable is used any other way (`$params[$name]`,
    /// `$params | keys`, `… as $params`), which no one can check by reading the text.
    public var field: String?
    /// 1-based line and column (in characters) of the `$`.
    public var line: Int
    public var column: Int
    /// The UTF-8 offsets of the read when it is written `$params.NAME`, in one piece.
    public var span: Range<Int>?
}

/// Finds a variable's reads in a program's text, from its tokens alone (see ``JQLiterals``). A
/// program that does not lex has none (libjq reports it).
public enum JQVariableReads {
    /// Every use of `$name` in `source`, in order.
    public static func find(_ name: String, in source: String) -> [JQVariableRead] {
        guard let tokens = try? JQLexer.tokenize(source) else { return [] }
        var reads: [JQVariableRead] = []
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            var next = i + 1
            if token.kind == .variable, token.text == "$" + name {
                // `$name` as one token.
            } else if token.kind == .punctuation, token.text == "$", i + 1 < tokens.count,
                tokens[i + 1].kind == .identifier, tokens[i + 1].text == name
            {
                next = i + 2  // libjq 1.6 reads `$ name` too
            } else {
                i += 1
                continue
            }
            var read = JQVariableRead(field: field(after: next, in: tokens), line: token.line, column: token.column)
            if next == i + 1, next < tokens.count, tokens[next].kind == .field, tokens[next].start == token.end {
                read.span = token.start..<tokens[next].end
            }
            reads.append(read)
            i = next
        }
        return reads
    }

    /// The field named right after the variable: `.name`, `."name"` or `["name"]`.
    private static func field(after index: Int, in tokens: [JQToken]) -> String? {
        guard index < tokens.count else { return nil }
        let token = tokens[index]
        if token.kind == .field { return String(token.text.dropFirst()) }
        guard index + 1 < tokens.count, case .string(let value, false) = tokens[index + 1].kind else { return nil }
        if token.kind == .punctuation, token.text == ".", tokens[index + 1].start == token.end { return value }
        if token.kind == .punctuation, token.text == "[", index + 2 < tokens.count,
            tokens[index + 2].kind == .punctuation, tokens[index + 2].text == "]"
        {
            return value
        }
        return nil
    }
}
