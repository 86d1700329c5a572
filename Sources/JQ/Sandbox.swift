import Core

/// How rule programs are confined.
///
/// - `$ENV` and `env` are an empty object (libjq would inline the whole process environment).
/// - `input`/`inputs` fail with a clear error; `input_filename` is null; `modulemeta` fails.
/// - `now` is the evaluation's time (a test's `now`, `--now`, or the clock), so rules are
///   deterministic under test.
/// - `debug` and `stderr` go to the evaluation's trace, never to the process's stderr.
/// - `halt` and `halt_error` become typed errors instead of stopping the state.
/// - `import`/`include` name modules relative to the library directory only: no absolute
///   paths, no `..`, no `search` metadata. Library files may not use the escapes above at all,
///   since the shadowing definitions cannot reach into them.
/// - `$HOME/.jq`, which libjq prepends to every program, is disabled (see ``disableUserLibrary()``).
///
/// The sandbox works by wrapping the program text: directives stay first, then a one-line
/// prelude with shadowing definitions, then the program itself. No line break is inserted,
/// so libjq's line numbers still match the rule's text.
public enum Sandbox {
    /// Marker of a `stderr` message in the debug stream.
    static let stderrMarker = "__journey_stderr__"
    /// Marker of a `halt`/`halt_error` raised as an error.
    static let haltMarker = "__journey_halt__"

    /// The state attribute that holds the evaluation's `now` (set before each evaluation).
    ///
    /// libjq's `get_jq_origin` builtin returns this attribute; `now` is defined on it and the
    /// builtin is then shadowed, so the time reaches the program without building a
    /// `[now, input]` pair and taking it apart at every evaluation (4 k instructions of ~70 k
    /// for the smallest bundled rule). libjq reads it otherwise only to expand `$ORIGIN` in
    /// library search paths, at compile time, before the first evaluation sets it.
    static let nowAttribute = "JQ_ORIGIN"

    /// Whether a program may call `now`: whether its text has `now` anywhere (an identifier is
    /// one token in libjq, and library files may not use `now`, so a program whose text lacks it
    /// never reads the time). Others skip setting ``nowAttribute`` at every evaluation (~0.5 k
    /// of ~70 k instructions of the smallest bundled rule).
    static func mayReadNow(_ source: String) -> Bool {
        source.contains("now")
    }

    /// Binds `$ENV` to an empty object for a program that names it. libjq 1.6 inlines the
    /// whole environment for an unbound `$ENV`, and lexes `$` and the name apart (`$ ENV`,
    /// `$ # comment` and a new line before `ENV` all read it), so any text `ENV` gets the binding;
    /// other programs skip it (it cost ~0.9 k of ~70 k instructions an evaluation of the
    /// smallest bundled rule).
    static let environmentBinding = "{} as $ENV | "

    /// The prelude; the program reads its input as given, and `now` from ``nowAttribute``.
    static let prelude =
        "def env: {}; "
        + "def now: get_jq_origin; def get_jq_origin: null; def get_prog_origin: null; "
        + "def input: error(\"input is not available to rules: a rule reads only its input (.)\"); "
        + "def inputs: input; "
        + "def stderr: ([\"\(stderrMarker)\", .] | debug | empty), .; "
        + "def halt: error([\"\(haltMarker)\", 0, null]); "
        + "def halt_error($code): error([\"\(haltMarker)\", $code, .]); "
        + "def halt_error: halt_error(5); "
        + "def modulemeta: error(\"modulemeta is not available to rules\"); "
        + "def input_filename: null; def get_search_list: []; "

    /// Names library files may not use, with the reason shown to the author.
    static let forbiddenInLibraries: [String: String] = [
        "env": "the environment is not available to rules",
        "$ENV": "the environment is not available to rules",
        "input": "rules read only their input (.)",
        "inputs": "rules read only their input (.)",
        "input_filename": "rules read only their input (.)",
        "stderr": "library functions may use `debug` for tracing, not `stderr`",
        "now": "library functions take the time as an argument; only rules may call `now`",
        "halt": "library functions may raise `error(...)`, not halt",
        "halt_error": "library functions may raise `error(...)`, not halt",
        "modulemeta": "module metadata is not available to rules",
        "get_search_list": "the library search path is not available to rules",
        "get_jq_origin": "library functions take the time as an argument; only rules may call `now`",
        "get_prog_origin": "the program's origin is not available to rules",
        "$params": "library functions take parameters as arguments: pass `$params.NAME` from the rule",
    ]

    /// An `import` or `include` at the top of a program.
    struct Directive: Equatable {
        enum Kind: Equatable { case `import`, include }
        var kind: Kind
        /// The module path, e.g. `journey` or `journey/blocks`.
        var module: String
        /// True for `import "x" as $name;` (a JSON data file).
        var isData: Bool
        var line: Int
        var column: Int
    }

    /// A program ready for libjq: its directives and its wrapped text.
    struct Prepared {
        var directives: [Directive]
        var wrappedSource: String
        /// The directives as written (everything before the program's code).
        var head: String
        /// The program's code after its directives (`.` when there is none).
        var body: String
        /// Whether every `)` of the body closes a `(` of the body (strings and comments aside),
        /// and every `(` is closed: the body cannot reach outside parentheses put around it.
        var bodyIsBalanced: Bool
    }

    /// Reads the directives of `source`, checks them against `libraryDirectory`, and wraps it.
    static func prepare(_ source: String, libraryDirectory: String?) throws(JQError) -> Prepared {
        let tokens: [JQToken]
        do {
            tokens = try JQLexer.tokenize(source)
        } catch {
            throw JQError(
                .compileError, error.message,
                problems: [CompileProblem(message: error.message, line: error.line, column: error.column)])
        }
        let (directives, headEnd, problems) = readDirectives(tokens, libraryDirectory: libraryDirectory)
        if !problems.isEmpty {
            throw JQError(.sandboxViolation, problems[0].message, problems: problems)
        }
        let utf8 = Array(source.utf8)
        let head = String(decoding: utf8[0..<headEnd], as: UTF8.self)
        let restHasCode = tokens.contains { $0.start >= headEnd }
        let rest = restHasCode ? String(decoding: utf8[headEnd...], as: UTF8.self) : "."
        let binding = source.contains("ENV") ? environmentBinding : ""
        var depth = 0
        for token in tokens where token.start >= headEnd && token.kind == .punctuation && depth >= 0 {
            if token.text == "(" { depth += 1 } else if token.text == ")" { depth -= 1 }
        }
        return Prepared(
            directives: directives, wrappedSource: head + " " + binding + prelude + rest, head: head, body: rest,
            bodyIsBalanced: depth == 0)
    }

    /// Parses `module`, `import` and `include` directives; returns them, the UTF-8 offset where
    /// the program proper starts, and any problems.
    static func readDirectives(
        _ tokens: [JQToken], libraryDirectory: String?
    ) -> (directives: [Directive], headEnd: Int, problems: [CompileProblem]) {
        var directives: [Directive] = []
        var problems: [CompileProblem] = []
        var i = 0
        var headEnd = 0

        func problem(_ message: String, at token: JQToken) {
            problems.append(CompileProblem(message: message, line: token.line, column: token.column))
        }

        /// Index of the `;` ending the directive that starts at `from`, at bracket depth 0.
        func endOfDirective(from: Int) -> Int? {
            var depth = 0
            var k = from
            while k < tokens.count {
                let t = tokens[k]
                if t.kind == .punctuation {
                    switch t.text {
                    case "{", "(", "[": depth += 1
                    case "}", ")", "]": depth -= 1
                    case ";" where depth == 0: return k
                    default: break
                    }
                }
                k += 1
            }
            return nil
        }

        while i < tokens.count, tokens[i].kind == .identifier,
            ["module", "import", "include"].contains(tokens[i].text)
        {
            let keyword = tokens[i]
            guard let end = endOfDirective(from: i + 1) else {
                problem("`\(keyword.text)` directive is not terminated by `;`", at: keyword)
                return (directives, headEnd, problems)
            }
            defer {
                headEnd = tokens[end].end
                i = end + 1
            }
            if keyword.text == "module" { continue }
            guard i + 1 < end, case .string(let path, let interpolated) = tokens[i + 1].kind, !interpolated else {
                problem("`\(keyword.text)` must name a module with a constant string", at: keyword)
                continue
            }
            let pathToken = tokens[i + 1]
            var isData = false
            var next = i + 2
            if keyword.text == "import" {
                guard next + 1 < end, tokens[next].text == "as",
                    tokens[next + 1].kind == .identifier || tokens[next + 1].kind == .variable
                else {
                    problem("`import \"\(path)\"` must be followed by `as NAME` or `as $NAME`", at: keyword)
                    continue
                }
                isData = tokens[next + 1].kind == .variable
                next += 2
            }
            if next < end {
                problem(
                    "module metadata is not allowed in rules: modules are found only in the library directory",
                    at: tokens[next])
                continue
            }
            if let message = checkModulePath(path, isData: isData, libraryDirectory: libraryDirectory) {
                problem(message, at: pathToken)
                continue
            }
            directives.append(
                Directive(
                    kind: keyword.text == "import" ? .import : .include, module: path, isData: isData,
                    line: keyword.line, column: keyword.column))
        }
        return (directives, headEnd, problems)
    }

    /// Nil when `path` names an existing module inside `libraryDirectory`, else why not.
    public static func checkModulePath(_ path: String, isData: Bool, libraryDirectory: String?) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        let valid =
            !components.isEmpty
            && components.allSatisfy { component in
                guard let first = component.utf8.first, first != UInt8(ascii: "-") else { return false }
                return component.utf8.allSatisfy { c in
                    (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
                        || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
                }
            }
        guard valid else {
            return
                "module path \"\(path)\" is not allowed: name a module inside the library directory with letters, digits, `_`, `-` and `/` (no absolute paths, no `..`)"
        }
        guard let libraryDirectory else {
            return "module \"\(path)\" cannot be imported: no library directory is configured"
        }
        let file = libraryDirectory + "/" + path + (isData ? ".json" : ".jq")
        guard FileSystem.isRegularFile(file) else {
            return "module \"\(path)\" not found: no file \(file)"
        }
        return nil
    }

    /// Problems in a library file: forbidden names, and directives that leave the library.
    /// Also returns the library's top-level definitions as `name/arity`, for a compile check.
    public static func inspectLibrary(
        _ source: String, libraryDirectory: String
    ) -> (definitions: [(name: String, arity: Int)], problems: [CompileProblem]) {
        let tokens: [JQToken]
        do {
            tokens = try JQLexer.tokenize(source)
        } catch {
            return ([], [CompileProblem(message: error.message, line: error.line, column: error.column)])
        }
        var (_, headEnd, problems) = readDirectives(tokens, libraryDirectory: libraryDirectory)
        var definitions: [(name: String, arity: Int)] = []
        var brackets: [String] = []
        var defStack: [Int] = []  // bracket depth at which each open `def` started
        for (i, token) in tokens.enumerated() where token.start >= headEnd {
            let previous = i > 0 ? tokens[i - 1] : nil
            let next = i + 1 < tokens.count ? tokens[i + 1] : nil
            switch token.kind {
            case .punctuation:
                switch token.text {
                case "(", "[", "{": brackets.append(token.text)
                case ")", "]", "}": _ = brackets.popLast()
                case ";":
                    if let open = defStack.last, open == brackets.count { defStack.removeLast() }
                default: break
                }
            case .identifier where token.text == "def":
                guard let name = next, name.kind == .identifier else { break }
                if defStack.isEmpty { definitions.append((name.text, arity(of: tokens, after: i + 1))) }
                defStack.append(brackets.count)
            case .identifier, .variable:
                guard let reason = forbiddenInLibraries[token.text] else { break }
                let isDefinition = previous?.text == "def"
                let isObjectKey =
                    brackets.last == "{" && (previous?.text == "{" || previous?.text == ",")
                    || (token.kind == .identifier && next?.text == ":")
                if token.kind == .variable || (!isDefinition && !isObjectKey) {
                    problems.append(
                        CompileProblem(
                            message: "`\(token.text)` is not allowed in library files: \(reason)",
                            line: token.line, column: token.column))
                }
            default: break
            }
        }
        return (definitions, problems)
    }

    /// The number of parameters of the `def` whose name is at `nameIndex`.
    private static func arity(of tokens: [JQToken], after nameIndex: Int) -> Int {
        let open = nameIndex + 1
        guard open < tokens.count, tokens[open].text == "(" else { return 0 }
        var depth = 0
        var count = 1
        for token in tokens[open...] where token.kind == .punctuation {
            switch token.text {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return count }
            case ";" where depth == 1: count += 1
            default: break
            }
        }
        return count
    }
}
