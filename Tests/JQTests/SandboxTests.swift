import Core
import TestSupport
import Testing

@testable import JQ

#if canImport(Glibc)
    import Glibc
#endif

/// Rules see nothing of the process: no environment, no files, no stderr.
@Suite struct SandboxTests {
    let now = 1_795_000_000.0

    func run(_ source: String, _ input: JSON = nil, library: String? = nil) throws -> (
        outputs: [JSON], trace: [TraceEntry]
    ) {
        try Program(source, libraryDirectory: library).outputs(JV(input), now: now, timeout: .seconds(5))
    }

    @Test func environmentIsEmpty() throws {
        #expect(try run("$ENV.HOME").outputs == [nil])
        #expect(try run("$ENV").outputs == [[:]])
        #expect(try run("env").outputs == [[:]])
        #expect(try run("def f: $ENV.PATH; f").outputs == [nil])
        // libjq 1.6 reads `$` and the name as two tokens: spaces, comments and new lines between them.
        #expect(try run("$ ENV.HOME").outputs == [nil])
        #expect(try run("$ # a comment\nENV | length").outputs == [0])
        #expect(try run("\"\\($ENV)\"").outputs == ["{}"])
        #expect(try run("env | length").outputs == [0])
    }

    @Test func nowIsTheEvaluationTime() throws {
        #expect(try run("now").outputs == [.number(now)])
        #expect(try run("now | todate").outputs == [.string("2026-11-18T11:06:40Z")])
        // The input reaches the program as given, beside the time.
        #expect(try run("[now, .]", ["a": 1]).outputs == [[.number(now), ["a": 1]]])
    }

    /// `now` is read from a state attribute through libjq's `get_jq_origin`, which is shadowed:
    /// a rule cannot read the attribute (or the program's origin) under another name, and each
    /// evaluation sees its own time.
    @Test func theTimeIsReadOnlyAsNow() throws {
        #expect(try run("[get_jq_origin, get_prog_origin]").outputs == [[nil, nil]])
        let program = try Program("now")
        #expect(try program.outputs(JV(nil), now: 1, timeout: .seconds(5)).outputs == [1])
        #expect(try program.outputs(JV(nil), now: 2, timeout: .seconds(5)).outputs == [2])
    }

    /// Only programs whose text names `now` set the time at each evaluation; a definition that
    /// calls it, or any text with `now` in it, counts (libraries may not call it).
    @Test(arguments: [
        ("now", true), ("def t: now; [t]", true), (".known", true), ("\"now\"", true),
        (".a + 1", false), ("[.[] | todate]", false),
    ])
    func theTimeIsSetOnlyForProgramsThatMayReadIt(source: String, reads: Bool) throws {
        #expect(try Program(source).readsNow == reads)
    }

    /// A program without `now` beside one with it: each sees what it should, in any order.
    @Test func programsWithoutNowDoNotDisturbTheTime() throws {
        let timeless = try Program("[., 1]")
        let timed = try Program("def t: now; [t, .]")
        #expect(try timeless.outputs(JV(0), now: 5, timeout: .seconds(5)).outputs == [[0, 1]])
        #expect(try timed.outputs(JV(0), now: 6, timeout: .seconds(5)).outputs == [[6, 0]])
        #expect(try timeless.outputs(JV(2), now: 7, timeout: .seconds(5)).outputs == [[2, 1]])
        #expect(try timed.outputs(JV(3), now: 8, timeout: .seconds(5)).outputs == [[8, 3]])
    }

    @Test func inputsAreNotAvailable() {
        for source in ["input", "[inputs]", "first(inputs)"] {
            #expect {
                try run(source)
            } throws: { error in
                (error as! JQError).message.contains("input is not available to rules")
            }
        }
    }

    @Test func debugAndStderrGoToTheTrace() throws {
        let result = try run(#"debug | stderr | . + 1"#, 41)
        #expect(result.outputs == [42])
        #expect(result.trace == [TraceEntry(kind: .debug, value: 41), TraceEntry(kind: .stderr, value: 41)])
    }

    @Test func importsResolveOnlyInTheLibrary() throws {
        let library = try TemporaryDirectory()
        try library.write("util.jq", "def twice: . * 2;")
        try library.write("data.json", #"{"k": 3}"#)
        #expect(try run(#"import "util" as u; u::twice"#, 4, library: library.path).outputs == [8])
        #expect(try run(#"include "util"; twice"#, 5, library: library.path).outputs == [10])
        #expect(try run(#"import "data" as $d; $d::d[0].k"#, library: library.path).outputs == [3])

        let forbidden = [
            #"import "/etc/passwd" as p; 1"#,
            #"import "../x" as p; 1"#,
            #"import "a/../../b" as p; 1"#,
            #"import "util" as u {search: "/"}; 1"#,
            #"include "missing"; 1"#,
        ]
        for source in forbidden {
            #expect(throws: JQError.self, "\(source)") { try run(source, library: library.path) }
        }
        #expect(throws: JQError.self) { try run(#"import "util" as u; 1"#) }  // no library configured
    }

    @Test func userLibraryInHomeIsIgnored() throws {
        Sandbox.disableUserLibrary()
        let home = String(cString: getenv("HOME"))
        #expect(!FileSystem.isRegularFile(home + "/.jq"))
        #expect(throws: JQError.self) { try Program("home_defined_in_dot_jq") }
    }

    @Test func libraryFilesAreInspected() throws {
        let library = try TemporaryDirectory()
        let source = """
            def ok: {env: 1, now: 2} | .env;
            def leak: $ENV.HOME;
            def clock: now;
            def read: input;
            def now_ok: 1;
            def origin: get_jq_origin;
            """
        let (definitions, problems) = Sandbox.inspectLibrary(source, libraryDirectory: library.path)
        #expect(definitions.map(\.name) == ["ok", "leak", "clock", "read", "now_ok", "origin"])
        #expect(problems.map(\.line) == [2, 3, 4, 6])
        #expect(problems.last?.message.contains("take the time as an argument") == true)
        #expect(problems[0].message.contains("$ENV"))
    }

    @Test func libraryDefinitionArities() {
        let (definitions, _) = Sandbox.inspectLibrary(
            "def a: def inner: 1; inner; def b(f): f; def c($x; g): reduce g as $v (0; . + $v); ",
            libraryDirectory: "/tmp")
        #expect(definitions.map { "\($0.name)/\($0.arity)" } == ["a/0", "b/1", "c/2"])
    }

    @Test func interpolatedStringsAreLexed() throws {
        let tokens = try JQLexer.tokenize(#""a\("b\(env)c")d" | .x"#)
        #expect(tokens.contains { $0.text == "env" && $0.kind == .identifier })
        #expect(tokens.last?.kind == .field)
    }

    @Test func programKeepsLineNumbersAfterWrapping() {
        do {
            _ = try Program("import \"x\" as x;\n\n.a | nope")
            Issue.record("compiled")
        } catch {
            #expect(error.code == .sandboxViolation)
            #expect(error.problems.first?.line == 1)
            #expect(error.problems.first?.column == 8)
        }
        do {
            _ = try Program("# comment\n\n.a | nope")
            Issue.record("compiled")
        } catch {
            #expect(error.problems.first?.line == 3)
        }
    }
}
