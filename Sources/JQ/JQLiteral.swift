/// A plain string literal of a jq program (no `\(…)`) where it names something: what the rule
/// set's reference checks read (a block id compared with `.block_id`, a recommendation's answer…).
/// ``JQLiterals/find(in:)`` finds them.
public struct JQLiteral: Sendable, Equatable, CustomStringConvertible {
    /// How the program uses the literal.
    public enum Use: Sendable, Equatable {
        /// One side of `==` or `!=` whose other side is a path: its field names, `[]` for an index
        /// or an iteration, and `$name` where it starts at a variable (`.blocks[].id` →
        /// `["blocks", "[]", "id"]`, `$b.block_id` → `["$b", "block_id"]`).
        case compared(path: [String])
        /// The value of `key` in an object construction (`{block_id: "x"}`).
        case objectValue(key: String)
        /// A possible output of the whole program: the program itself, the last stage of its
        /// top-level pipe, each side of `,` and `//` there, each branch of an `if … end` and the
        /// inside of parentheses in such a place (`… | .id? // "x"`, `if … then "x" else … end`).
        case result
        /// An element of an array construction whose elements are all plain string literals
        /// (`["a", "b"]`); elements of one array share `array`.
        case arrayElement(array: Int)
    }

    /// The literal's text, escapes resolved.
    public var value: String
    public var use: Use
    /// 1-based line and column (in characters) of its opening quote in the program.
    public var line: Int
    public var column: Int

    public init(value: String, use: Use, line: Int, column: Int) {
        self.value = value
        self.use = use
        self.line = line
        self.column = column
    }

    /// `"x" at 2:5 (result)`, for test messages.
    public var description: String { "\"\(value)\" at \(line):\(column) (\(use))" }
}
