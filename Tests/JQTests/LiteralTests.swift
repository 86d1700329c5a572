import JQ
import Testing

/// Which string literals of a program name something, and how (JQLiterals).
@Suite struct LiteralTests {
    /// A program and its literals as `value use`, in order of place.
    static let programs: [(String, [String])] = [
        // Compared with a path, either side; `!=` too.
        (#".blocks[] | select(.id == "dental-check") | .id"#, [#"dental-check compared(path: ["id"])"#]),
        (#"select("x" != $e.payload.block_id)"#, [#"x compared(path: ["$e", "payload", "block_id"])"#]),
        (#".blocks[0].id == "a""#, [#"a compared(path: ["blocks", "[]", "id"])"#]),
        // Not a whole operand: arithmetic, a bare variable.
        (#".id + "s" == "a-s""#, []),
        (#".id == "a" + "b""#, []),
        (#"$picked == "later""#, []),
        // Object values, not keys nor computed values.
        (
            #"[{type: "block_step_completed", block_id: "growth-check", step: ("a" + "b")}]"#,
            [
                "block_step_completed objectValue(key: \"type\")", "growth-check objectValue(key: \"block_id\")",
            ]
        ),
        (#"{"catalog": "puppy-4-8m"}"#, [#"puppy-4-8m objectValue(key: "catalog")"#]),
        // Results: the program, the last stage, `//`, `,`, if branches, parentheses.
        (#""dental-check""#, ["dental-check result"]),
        (#"include "journey"; available_blocks | .[0].id? // "dental-check""#, ["dental-check result"]),
        (#"if .dog.age < 5 then "a" elif .x then ("b") else "c" end"#, ["a result", "b result", "c result"]),
        (#"def f: "x"; f | "y", "z""#, ["y result", "z result"]),
        (#"(if . then "bond" else "recall" end) as $topic | .blocks[] | .id"#, []),
        (#""a" as $x | $x"#, []),
        (#"try "a" catch "b""#, []),
        // Arrays of literals only; indexes are not arrays.
        (
            #"["a", "b"] as $first | $m["c"] | index(["d"])"#,
            [
                "a arrayElement(array: 1)", "b arrayElement(array: 1)", "d arrayElement(array: 2)",
            ]
        ),
        (#"["a", .b]"#, []),
        // Interpolations are not looked into.
        (#""\(.id == "x")""#, []),
    ]

    @Test(arguments: programs.indices)
    func literalsAndTheirUses(_ index: Int) {
        let (source, expected) = Self.programs[index]
        let found = JQLiterals.find(in: source).map { "\($0.value) \($0.use)" }
        #expect(found == expected, "\(source)")
    }

    @Test func placesAreLinesAndColumnsOfTheOpeningQuote() {
        let found = JQLiterals.find(in: "include \"journey\";\n.blocks[]\n  | select(.id == \"a\")")
        #expect(found.map { "\($0.line):\($0.column)" } == ["3:19"])
    }
}
