import Core

/// An error from compiling or running a jq program, or from reading JSON input.
///
/// `code` is stable and snake_case (for JSON output and tests); `message` is for people.
public struct JQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable, CaseIterable {
        /// The program does not compile (syntax error, undefined function, missing module).
        case compileError = "compile_error"
        /// The program uses something the sandbox forbids (an import outside the library, …).
        case sandboxViolation = "sandbox_violation"
        /// `error(...)` or a failing builtin at run time.
        case runtimeError = "runtime_error"
        /// The program called `halt` or `halt_error`.
        case halt = "halt"
        /// The evaluation ran past its time budget and was stopped.
        case timeout = "timeout"
        /// Input text that is not JSON.
        case invalidJSON = "invalid_json"
        /// Input bytes that are not UTF-8.
        case invalidUTF8 = "invalid_utf8"
        /// Input larger than the configured limit.
        case inputTooLarge = "input_too_large"
        /// A value nested deeper than the configured limit.
        case tooDeep = "too_deep"
        /// A program was asked to run while it was already running.
        case busy = "busy"
    }

    public var code: Code
    public var message: String
    /// The value passed to `error(...)` or `halt_error`, when there was one.
    public var value: JSON?
    /// For `halt_error`: the exit code it asked for.
    public var exitCode: Int?
    /// Compile problems, each with its own position (empty for other codes).
    public var problems: [CompileProblem]

    public init(
        _ code: Code, _ message: String, value: JSON? = nil, exitCode: Int? = nil,
        problems: [CompileProblem] = []
    ) {
        self.code = code
        self.message = message
        self.value = value
        self.exitCode = exitCode
        self.problems = problems
    }

    public var description: String { "\(message) [\(code.rawValue)]" }
}

/// One compile problem as libjq reports it, with the position parsed out of its text.
public struct CompileProblem: Sendable, Equatable {
    /// The message without libjq's prefix and position, e.g. `foo/0 is not defined`.
    public var message: String
    /// 1-based line in the program text (or in `file`), when libjq gave one.
    public var line: Int?
    /// 1-based column, when known (libjq 1.7+ reports columns; 1.6 does not).
    public var column: Int?
    /// The library file the problem is in; nil when it is in the program itself.
    public var file: String?

    public init(message: String, line: Int? = nil, column: Int? = nil, file: String? = nil) {
        self.message = message
        self.line = line
        self.column = column
        self.file = file
    }
}
