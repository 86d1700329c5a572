/// Finds the plain string literals of a jq program that name something (``JQLiteral/Use``),
/// from its tokens alone: no evaluation, no type inference, so it sees only what is written.
/// A program that does not lex has none (libjq reports it).
public enum JQLiterals {
    public static func find(in source: String) -> [JQLiteral] {
        guard let tokens = try? JQLexer.tokenize(source) else { return [] }
        let program = Tokens(outsideInterpolations(tokens))
        var found = program.comparedLiterals() + program.objectValues() + program.arrayElements()
        found += program.results(in: program.bodyStart..<program.tokens.count).map {
            program.literal($0, .result)
        }
        return found.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// Drops the tokens of `\(…)` interpolations (the lexer emits them before their string).
    private static func outsideInterpolations(_ tokens: [JQToken]) -> [JQToken] {
        var kept: [JQToken] = []
        for token in tokens {
            if case .string(_, true) = token.kind {
                while let last = kept.last, last.start >= token.start { kept.removeLast() }
            }
            kept.append(token)
        }
        return kept
    }
}

/// A program's tokens with multi-character operators joined (`==`, `//`, `|=`…).
private struct Tokens {
    let tokens: [JQToken]
    /// Where the program starts after its `import`/`include` directives.
    let bodyStart: Int

    static let operators = ["//=", "?//", "==", "!=", "<=", ">=", "//", "|=", "+=", "-=", "*=", "/=", "%="]
    static let arithmetic: Set<String> = ["+", "-", "*", "/", "%"]
    static let keywords: Set<String> = [
        "if", "then", "elif", "else", "end", "and", "or", "as", "def", "reduce", "foreach", "try", "catch",
        "label", "import", "include", "not",
    ]

    init(_ raw: [JQToken]) {
        var joined: [JQToken] = []
        var i = 0
        while i < raw.count {
            var token = raw[i]
            var consumed = 1
            // Each punctuation token is one character: an operator is a run of adjacent ones.
            for op in Self.operators where token.kind == .punctuation && i + op.count <= raw.count {
                let run = raw[i..<(i + op.count)]
                let adjacent = zip(run, run.dropFirst()).allSatisfy { $0.end == $1.start }
                if adjacent, run.allSatisfy({ $0.kind == .punctuation }), run.map(\.text).joined() == op {
                    token.text = op
                    token.end = raw[i + op.count - 1].end
                    consumed = op.count
                    break
                }
            }
            joined.append(token)
            i += consumed
        }
        tokens = joined
        var start = 0
        while start < joined.count, ["import", "include"].contains(Self.word(joined[start])) {
            while start < joined.count, !Self.isOp(joined[start], ";") { start += 1 }
            start += 1
        }
        bodyStart = min(start, joined.count)
    }

    static func isOp(_ token: JQToken, _ text: String) -> Bool { token.kind == .punctuation && token.text == text }
    static func isString(_ token: JQToken) -> Bool {
        if case .string = token.kind { return true }
        return false
    }
    static func word(_ token: JQToken) -> String? { token.kind == .identifier ? token.text : nil }
    static func plainString(_ token: JQToken) -> String? {
        if case .string(let value, false) = token.kind { return value }
        return nil
    }

    func literal(_ index: Int, _ use: JQLiteral.Use) -> JQLiteral {
        let token = tokens[index]
        return JQLiteral(value: Self.plainString(token) ?? "", use: use, line: token.line, column: token.column)
    }

    private func op(_ index: Int) -> String? {
        index >= 0 && index < tokens.count && tokens[index].kind == .punctuation ? tokens[index].text : nil
    }

    // MARK: Comparisons

    /// Literals on one side of `==`/`!=` with a path on the other; neither side may be part of
    /// arithmetic (`.a + "x" == …` compares a sum).
    func comparedLiterals() -> [JQLiteral] {
        var found: [JQLiteral] = []
        for i in tokens.indices where op(i) == "==" || op(i) == "!=" {
            if i + 1 < tokens.count, Self.plainString(tokens[i + 1]) != nil,
                !Self.arithmetic.contains(op(i + 2) ?? ""), op(i + 2) != "[",
                let path = pathBefore(i), !path.isEmpty
            {
                found.append(literal(i + 1, .compared(path: path)))
            } else if i >= 1, Self.plainString(tokens[i - 1]) != nil, !Self.arithmetic.contains(op(i - 2) ?? ""),
                let path = pathAfter(i), !path.isEmpty
            {
                found.append(literal(i - 1, .compared(path: path)))
            }
        }
        return found
    }

    /// The path whose last token is just before `index`, read backwards: fields, `?`, `[…]`,
    /// from `.` or a variable; nil when what is there is not a whole path.
    private func pathBefore(_ index: Int) -> [String]? {
        var path: [String] = []
        var j = index - 1
        while j >= 0 {
            let token = tokens[j]
            if Self.isOp(token, "?") {
                j -= 1
            } else if token.kind == .field {
                path.insert(String(token.text.dropFirst()), at: 0)
                j -= 1
            } else if Self.isOp(token, "]"), let open = matching(closing: j) {
                path.insert("[]", at: 0)
                j = open - 1
            } else if token.kind == .variable {
                path.insert(token.text, at: 0)
                j -= 1
                break
            } else if Self.isOp(token, "."), path.first == "[]" {
                j -= 1
                break
            } else {
                break
            }
        }
        guard path.contains(where: { !$0.hasPrefix("$") && $0 != "[]" }) else { return nil }
        // Part of a sum or a postfix chain is not the whole operand.
        if j >= 0, Self.arithmetic.contains(op(j) ?? "") || tokens[j].kind == .number || Self.isString(tokens[j]) {
            return nil
        }
        return path
    }

    /// The path that starts just after `index`, read forwards; nil when it is not a whole operand.
    private func pathAfter(_ index: Int) -> [String]? {
        var path: [String] = []
        var j = index + 1
        if j < tokens.count, tokens[j].kind == .variable {
            path.append(tokens[j].text)
            j += 1
        } else if j < tokens.count, Self.isOp(tokens[j], "."), op(j + 1) == "[" {
            j += 1
        }
        while j < tokens.count {
            if tokens[j].kind == .field {
                path.append(String(tokens[j].text.dropFirst()))
                j += 1
            } else if Self.isOp(tokens[j], "?") {
                j += 1
            } else if Self.isOp(tokens[j], "["), let close = matching(opening: j) {
                path.append("[]")
                j = close + 1
            } else {
                break
            }
        }
        guard path.contains(where: { !$0.hasPrefix("$") && $0 != "[]" }) else { return nil }
        if Self.arithmetic.contains(op(j) ?? "") { return nil }
        return path
    }

    // MARK: Objects and arrays

    /// `{key: "x"}` and `{"key": "x"}`: a literal that is a whole value of an object construction.
    func objectValues() -> [JQLiteral] {
        var found: [JQLiteral] = []
        let enclosing = innermostOpenings()
        for i in tokens.indices where i >= 3 && Self.plainString(tokens[i]) != nil {
            guard op(i - 1) == ":", op(i - 3) == "{" || op(i - 3) == ",", op(i + 1) == "," || op(i + 1) == "}",
                let open = enclosing[i], op(open) == "{"
            else { continue }
            let keyToken = tokens[i - 2]
            guard let key = keyToken.kind == .identifier ? keyToken.text : Self.plainString(keyToken) else { continue }
            found.append(literal(i, .objectValue(key: key)))
        }
        return found
    }

    /// `["a", "b"]` built (not an index `x["a"]`), of plain string literals only.
    func arrayElements() -> [JQLiteral] {
        var found: [JQLiteral] = []
        var array = 0
        for i in tokens.indices where op(i) == "[" && !isPostfix(before: i) {
            guard let close = matching(opening: i), close > i + 1 else { continue }
            let inside = Array((i + 1)..<close)
            let elements = inside.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let commas = inside.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            guard inside.count % 2 == 1, elements.allSatisfy({ Self.plainString(tokens[$0]) != nil }),
                commas.allSatisfy({ op($0) == "," })
            else { continue }
            array += 1
            found += elements.map { literal($0, .arrayElement(array: array)) }
        }
        return found
    }

    /// Whether the `[` at `index` indexes what comes before it (`.a[…]`, `$x[…]`, `f(…)[…]`).
    private func isPostfix(before index: Int) -> Bool {
        guard index > 0 else { return false }
        let previous = tokens[index - 1]
        switch previous.kind {
        case .field, .variable, .string, .number, .format: return true
        case .identifier: return !Self.keywords.contains(previous.text)
        case .punctuation: return [")", "]", "}", ".", "?"].contains(previous.text)
        }
    }

    // MARK: Results

    /// The literals among `range` that can be its output (see ``JQLiteral/Use/result``).
    func results(in range: Range<Int>) -> [Int] {
        var low = range.lowerBound
        // Definitions first: `def f: …;` (nested ones end at their own `;`).
        while low < range.upperBound, Self.word(tokens[low]) == "def" {
            guard let end = endOfDefinition(from: low, before: range.upperBound) else { return [] }
            low = end + 1
        }
        guard low < range.upperBound else { return [] }
        let stages = split(low..<range.upperBound, at: "|")
        guard let last = stages.last else { return [] }
        var found: [Int] = []
        for part in split(last, at: ",") {
            for alternative in split(part, at: "//") where !alternative.isEmpty {
                found += resultsOfTerm(alternative)
            }
        }
        return found
    }

    private func resultsOfTerm(_ range: Range<Int>) -> [Int] {
        let first = range.lowerBound
        let last = range.upperBound - 1
        if range.count == 1, Self.plainString(tokens[first]) != nil { return [first] }
        if op(first) == "(", matching(opening: first) == last { return results(in: (first + 1)..<last) }
        guard Self.word(tokens[first]) == "if", matching(opening: first) == last else { return [] }
        // Each branch: after `then` or `else` (at this `if`'s level) up to the next `elif`/`else`/`end`.
        var found: [Int] = []
        var depth = 0
        var branchStart: Int?
        for i in first...last {
            let word = Self.word(tokens[i])
            if depth == 1, let start = branchStart, ["elif", "else", "end"].contains(word) {
                found += results(in: start..<i)
                branchStart = nil
            }
            if depth == 1, word == "then" || word == "else" { branchStart = i + 1 }
            if opens(i) { depth += 1 } else if closes(i) { depth -= 1 }
        }
        return found
    }

    /// `range` split at `separator` where it is not nested; empty when a `;` is there too.
    private func split(_ range: Range<Int>, at separator: String) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        var depth = 0
        var start = range.lowerBound
        for i in range {
            if depth == 0, op(i) == ";" { return [] }
            if depth == 0, op(i) == separator {
                parts.append(start..<i)
                start = i + 1
            }
            if opens(i) { depth += 1 } else if closes(i) { depth = max(depth - 1, 0) }
        }
        parts.append(start..<range.upperBound)
        return parts
    }

    private func endOfDefinition(from start: Int, before upper: Int) -> Int? {
        var depth = 0
        var open = 0
        for i in start..<upper {
            if depth == 0, Self.word(tokens[i]) == "def" { open += 1 }
            if depth == 0, op(i) == ";" {
                open -= 1
                if open == 0 { return i }
            }
            if opens(i) { depth += 1 } else if closes(i) { depth = max(depth - 1, 0) }
        }
        return nil
    }

    // MARK: Nesting

    private func opens(_ i: Int) -> Bool {
        ["(", "[", "{"].contains(op(i) ?? "") || Self.word(tokens[i]) == "if"
    }

    private func closes(_ i: Int) -> Bool {
        [")", "]", "}"].contains(op(i) ?? "") || Self.word(tokens[i]) == "end"
    }

    /// The index closing the bracket (or `if`) opened at `index`.
    func matching(opening index: Int) -> Int? {
        var depth = 0
        for i in index..<tokens.count {
            if opens(i) { depth += 1 } else if closes(i) { depth -= 1 }
            if depth == 0 { return i }
        }
        return nil
    }

    /// The index opening the bracket closed at `index`.
    func matching(closing index: Int) -> Int? {
        var depth = 0
        for i in stride(from: index, through: 0, by: -1) {
            if closes(i) { depth += 1 } else if opens(i) { depth -= 1 }
            if depth == 0 { return i }
        }
        return nil
    }

    /// For each token, the index of the innermost bracket open around it.
    private func innermostOpenings() -> [Int: Int] {
        var stack: [Int] = []
        var result: [Int: Int] = [:]
        for i in tokens.indices {
            if closes(i) { _ = stack.popLast() }
            if let top = stack.last { result[i] = top }
            if opens(i) { stack.append(i) }
        }
        return result
    }
}
