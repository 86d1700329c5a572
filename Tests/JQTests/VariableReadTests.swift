import JQ
import Testing

/// Which fields of `$params` a program reads (JQVariableReads), and where.
@Suite struct VariableReadTests {
    /// A program and its reads of `$params` as `field@line:column` (`?` for a use by no name).
    static let programs: [(String, [String])] = [
        ("$params.window", ["window@1:1"]),
        (#"$params."window" + $params["limit"]"#, ["window@1:1", "limit@1:20"]),
        ("$params.window? // 7", ["window@1:1"]),
        ("$params | keys", ["?@1:1"]),
        ("$params[$name]", ["?@1:1"]),
        ("1 as $params | $params.a", ["?@1:6", "a@1:16"]),
        ("$ params.a", ["a@1:1"]),
        // Other variables and fields named params are not reads.
        (".params.window, $paramsx.y, $p.params", []),
        // Inside an interpolation, on a later line.
        ("\"x\"\n| \"in \\($params.days) days\"", ["days@2:9"]),
        // A comment is not code.
        ("# $params.x\n.", []),
    ]

    @Test(arguments: programs)
    func readsAreFound(_ program: String, _ expected: [String]) {
        let found = JQVariableReads.find("params", in: program).map { "\($0.field ?? "?")@\($0.line):\($0.column)" }
        #expect(found == expected)
    }
}
