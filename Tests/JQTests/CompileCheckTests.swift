import Core
import TestSupport
import Testing

@testable import JQ

/// One libjq compile confirms many programs, and never confirms one that does not compile alone.
@Suite struct CompileCheckTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var source: String
        var constants: [String] = []
        /// Whether the program compiles when compiled alone (as ``Program`` does).
        var compilesAlone: Bool
        /// Whether the combined check confirms it; never true where `compilesAlone` is false.
        var confirmed: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a plain program", source: ".a + 1", compilesAlone: true, confirmed: true),
        Case(name: "its own definitions", source: "def f: . * 2; f | f", compilesAlone: true, confirmed: true),
        Case(
            name: "a constant it is given", source: "$params.limit", constants: ["params"], compilesAlone: true,
            confirmed: true),
        Case(name: "a constant it is not given", source: "$params.limit", compilesAlone: false, confirmed: false),
        Case(name: "a trailing comment", source: ". # the end", compilesAlone: true, confirmed: true),
        Case(
            name: "parentheses in strings", source: #""(" + ")" + "\(1 + (2))""#, compilesAlone: true, confirmed: true),
        Case(name: "the sandbox's now", source: "now", compilesAlone: true, confirmed: true),
        Case(name: "an undefined function", source: "nosuch(1)", compilesAlone: false, confirmed: false),
        Case(name: "a syntax error", source: ".a +", compilesAlone: false, confirmed: false),
        Case(
            name: "code that would close its wrapper", source: "1) , (2", compilesAlone: false, confirmed: false),
        Case(name: "an unclosed parenthesis", source: "(1", compilesAlone: false, confirmed: false),
        Case(
            name: "naming the combined functions", source: "\(CompileCheck.functionPrefix)0", compilesAlone: false,
            confirmed: false),
        Case(
            name: "a module included by another program", source: "twice", compilesAlone: false,
            confirmed: false),
        Case(name: "including the module", source: "include \"util\"; twice", compilesAlone: true, confirmed: true),
        Case(
            name: "importing the module", source: "import \"util\" as u; u::twice", compilesAlone: true,
            confirmed: true),
        Case(name: "a sandbox violation", source: "include \"/etc/passwd\"; .", compilesAlone: false, confirmed: false),
        Case(name: "only definitions", source: "def f: 1;", compilesAlone: true, confirmed: false),
    ]

    @Test(arguments: cases)
    func confirmsOnlyWhatCompilesAlone(_ check: Case) throws {
        let library = try TemporaryDirectory()
        try library.write("util.jq", "def twice: . * 2;")
        // Every case among all the others, as a rule set's load checks them.
        let candidates = Self.cases.map {
            CompileCheck.Candidate(source: $0.source, constantNames: $0.constants)
        }
        let index = try #require(Self.cases.firstIndex { $0.name == check.name })
        let unconfirmed = CompileCheck.unconfirmed(candidates, libraryDirectory: library.path)
        let constants = JSONObject(check.constants.map { ($0, JSON.object([:])) })
        let alone = (try? Program(check.source, libraryDirectory: library.path, constants: constants)) != nil
        #expect(alone == check.compilesAlone)
        #expect(!unconfirmed.contains(index) == check.confirmed)
    }

    @Test func oneBrokenProgramAmongManyIsFoundAlone() {
        var candidates = (0..<40).map { CompileCheck.Candidate(source: ".n + \($0)", constantNames: []) }
        candidates[27] = CompileCheck.Candidate(source: "nosuch", constantNames: [])
        #expect(CompileCheck.unconfirmed(candidates, libraryDirectory: nil) == [27])
    }

    @Test func nothingToCheck() {
        #expect(CompileCheck.unconfirmed([], libraryDirectory: nil).isEmpty)
    }
}
