import Testing

@testable import YAML

@Suite struct YAMLParserTests {
    @Test func mappingsKeepOrderAndPositions() throws {
        let text = """
            rule: recommendation
            kind: recommendation
            expr: |
              .a
              | .b
            tests:
              - name: one
                expect: 3
            """
        let documents = try YAMLParser.parse(text)
        #expect(documents.count == 1)
        let root = documents[0]
        #expect(root.pairs?.map { $0.key.scalar?.value } == ["rule", "kind", "expr", "tests"])
        let expr = try #require(root["expr"])
        #expect(expr.scalar == YAMLScalar(".a\n| .b\n", style: .literal))
        #expect(expr.start == YAMLMark(line: 3, column: 7))
        let test = try #require(root["tests"]?.items?.first)
        #expect(test["expect"]?.start == YAMLMark(line: 8, column: 13))
    }

    static let resolutions: [(String, ResolvedScalar?)] = [
        ("a: ~", .null), ("a:", .null), ("a: null", .null),
        ("a: true", .bool(true)), ("a: False", .bool(false)),
        ("a: yes", .string("yes")), ("a: off", .string("off")),
        ("a: 42", .number(42)), ("a: -1.5e3", .number(-1500)), ("a: .5", .number(0.5)),
        ("a: 0x1F", .number(31)), ("a: 0o17", .number(15)),
        ("a: '42'", .string("42")), ("a: \"true\"", .string("true")),
        ("a: !!str 42", .string("42")), ("a: 2026-11-29T10:00:00Z", .string("2026-11-29T10:00:00Z")),
        ("a: 1.2.3", .string("1.2.3")), ("a: inf", .string("inf")), ("a: 1_000", .string("1_000")),
    ]

    @Test(arguments: resolutions)
    func coreSchema(_ text: String, _ expected: ResolvedScalar?) throws {
        let node = try #require(try YAMLParser.parse(text).first?["a"])
        #expect(try node.resolvedScalar() == expected)
    }

    @Test func anchorsAndAliases() throws {
        let root = try #require(try YAMLParser.parse("base: &b {x: 1}\ncopy: *b\n").first)
        #expect(root["copy"]?.pairs?.first?.value.scalar?.value == "1")
        #expect(root["copy"]?.start.line == 2)
    }

    static let malformed: [(String, String, Int)] = [
        ("tab indentation", "rule: x\ntests:\n\t- name: a\n", 3),
        ("unclosed quote", "rule: \"x\nkind: y\n", 3),
        ("bad indentation", "rule: x\n  kind: y\n", 2),
        ("unclosed flow", "a: [1, 2\nb: 3\n", 2),
    ]

    @Test(arguments: malformed)
    func malformedYAMLNamesTheLine(_ name: String, _ text: String, _ line: Int) {
        do {
            _ = try YAMLParser.parse(text)
            Issue.record("\(name) parsed")
        } catch {
            #expect(error.mark.line == line, "\(error)")
            if name == "tab indentation" { #expect(error.message.contains("tabs")) }
        }
    }

    @Test func unsupportedTagIsAnError() throws {
        let node = try #require(try YAMLParser.parse("a: !include other.yaml").first?["a"])
        #expect(throws: YAMLError.self) { try node.resolvedScalar() }
    }

    @Test func emptyTextHasNoDocuments() throws {
        #expect(try YAMLParser.parse("").isEmpty)
        #expect(try YAMLParser.parse("# only a comment\n").isEmpty)
    }
}
