import Core
import Foundation
import JQ
import TestSupport
import Testing

@Suite struct EvalCommandTests {
    @Test func exprPrintsEachOutputCompactlyLikeJq() {
        let run = journey(
            ["eval", "--expr", ".[] | {name, n: (.n * 2)}"],
            stdin: Array(#"[{"n":1,"name":"a"},{"name":"é\n","n":2.5}]"#.utf8))
        #expect(run.status == 0)
        #expect(run.stdout == "{\"name\":\"a\",\"n\":2}\n{\"name\":\"é\\n\",\"n\":5}\n")
    }

    @Test func exprReadsEveryInputValue() {
        let run = journey(["eval", "-e", ". + 1"], stdin: Array("1 2\n3".utf8))
        #expect(run.stdout == "2\n3\n4\n")
    }

    @Test func nullInput() {
        #expect(journey("eval", "--expr", "[range(3)]", "-n").stdout == "[0,1,2]\n")
    }

    @Test func environmentIsInvisible() {
        let run = journey("eval", "--expr", "$ENV.HOME, env.PATH, ($ENV | length)", "-n")
        #expect(run.stdout == "null\nnull\n0\n")
    }

    @Test func nowFlagSetsNow() {
        #expect(
            journey("eval", "--expr", "now | todate", "-n", "--now", "2026-11-29T09:00:00+01:00").stdout
                == "\"2026-11-29T08:00:00Z\"\n")
    }

    @Test func ruleWithFileInput() {
        let run = journey("eval", "recommendation", "--rules", Repository.rules, "--input", Repository.q123)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\"impulse-control-basics\"\n")
    }

    @Test func variantsAndFallback() {
        let base = ["eval", "recommendation", "--rules", Repository.rules, "--input", Repository.q123]
        #expect(journey(base + ["--variant", "by-branch"]).stdout == "\"growth-check\"\n")
        #expect(journey(base + ["--fallback"]).stdout == "\"dental-check\"\n")
        let unknown = journey(base + ["--variant", "nope"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("its variants: `control` and `by-branch`"))
    }

    /// `--user` picks the variant by the user's assignment: the trace names the variant that was
    /// evaluated (it used to name the default while another one ran). u1 gets `by-branch`, u2
    /// `control` (GrowthBook's hash of the key and user, no store: nothing kept).
    @Test(arguments: [("u1", "by-branch"), ("u2", "control"), ("owner-1", "by-branch")])
    func traceNamesTheVariantTheAssignmentChose(user: String, variant: String) {
        let run = journey(
            "eval", "recommendation", "--rules", Repository.rules, "--plugins", Repository.plugins, "--input",
            Repository.q123, "--user", user, "--trace", "--now", "2026-11-29T12:00:00Z", "--db", "/nonexistent.sqlite")
        #expect(run.stderr.contains("assignment: \(variant) (assigned"), "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("variant:") }
        #expect(lines.count == 1 && lines[0].hasPrefix("variant:  \(variant) "), "\(run.stderr)")
    }

    /// DC-08: `--input <(…)` (a process substitution, /dev/fd/63: a pipe with no size to stat)
    /// and a named FIFO are read by streaming them, like any file (they used to be "cannot read
    /// input file /dev/fd/63").
    @Test(arguments: [
        "journey eval --expr '.a + 1' --input <(echo '{\"a\": 1}')",
        "mkfifo \"$TMP/in\" && (echo '{\"a\": 1}' > \"$TMP/in\" &) && journey eval --expr '.a + 1' --input \"$TMP/in\"",
    ])
    func inputFromAPipeIsRead(_ command: String) throws {
        let folder = try TemporaryDirectory()
        let executable = try BuiltExecutable.path("journey")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "journey() { \"$JOURNEY\" \"$@\"; }; " + command]
        process.environment = ["JOURNEY": executable, "TMP": folder.path, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && stdout == "2\n", "\(stdout)\(stderr)")
    }

    @Test func traceGoesToStderr() {
        let run = journey(
            "eval", "recommendation", "--rules", Repository.rules, "--input", Repository.q123, "--trace", "--now",
            "2026-11-29T09:00:00Z")
        #expect(run.stdout == "\"impulse-control-basics\"\n")
        for line in [
            "rule:     recommendation (kind recommendation)", "file:     ", "recommendation.yaml:1:1",
            "variant:  control (experiment recommendation-v2", "input:    object, ",
            "dog, branches, blocks, records, events",
            "now:      2026-11-29T09:00:00Z", "output:   \"impulse-control-basics\"", "time:     ",
        ] {
            #expect(run.stderr.contains(line), "\(line)")
        }
    }

    @Test func debugMessagesAppearInTheTraceOnly() {
        let run = journey("eval", "--expr", "debug | stderr | . + 1", "-n", "--trace")
        #expect(run.stdout == "1\n")
        #expect(run.stderr.contains("debug:    null"))
        #expect(run.stderr.contains("stderr:   null"))
    }

    @Test func unknownRule() {
        let run = journey("eval", "recomendation", "--rules", Repository.rules, "-n")
        #expect(run.status == 1)
        #expect(run.stderr.contains("no rule `recomendation`; did you mean `recommendation`?"))
    }

    static let badInputs: [(String, [UInt8], String)] = [
        (
            "invalid UTF-8", [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D],
            "not valid UTF-8: byte 0xC3 at line 1, column 7"
        ),
        ("malformed JSON", Array("{\"a\": }".utf8), "not valid JSON"),
        ("10 MB", [UInt8](repeating: 0x20, count: 10 * 1024 * 1024), "over the limit of 4.0 MiB"),
    ]

    @Test(arguments: badInputs)
    func badInputIsAClearErrorAndNoOutput(_ name: String, _ bytes: [UInt8], _ message: String) {
        let run = journey(["eval", "--expr", "."], stdin: bytes)
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("Error: standard input: "))
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func maxInputRaisesTheLimit() {
        let bytes = Array(("[" + String(repeating: "1,", count: 3_000_000) + "1]").utf8)
        #expect(journey(["eval", "--expr", "length"], stdin: bytes).status == 1)
        #expect(journey(["eval", "--expr", "length", "--max-input", "16MiB"], stdin: bytes).stdout == "3000001\n")
    }

    @Test func runawayExprIsStopped() {
        let run = journey("eval", "--expr", "def f: f; f", "-n", "--timeout", "100ms")
        #expect(run.status == 1)
        #expect(run.stderr.contains("ran past its time budget of 100ms and was stopped [timeout]"))
    }

    @Test func compileErrorOfAnExpr() {
        let run = journey("eval", "--expr", ".a |||", "-n")
        #expect(run.status == 2)
        #expect(run.stderr.contains("Error: <expr>:1: syntax error"))
    }

    @Test func importOutsideTheLibraryIsRefused() {
        let run = journey("eval", "--expr", #"import "/etc/passwd" as p; 1"#, "-n", "--rules", Repository.rules)
        #expect(run.status == 2)
        #expect(run.stderr.contains("sandbox_violation"))
    }

    @Test func exprCanUseTheLibrary() {
        let run = journey(
            "eval", "--expr", #"include "journey"; "2026-11-29T10:00:00+01:00" | iso_seconds"#, "-n", "--rules",
            Repository.rules)
        #expect(run.stdout == "1795942800\n", "\(run.stderr)")
    }

    /// A rule that declares what it `reads` is evaluated on its input narrowed as the engine
    /// narrows it: the records of other kinds and the events of other types never reach it.
    @Test func aRuleThatDeclaresWhatItReadsSeesOnlyThat() throws {
        let rules = try TemporaryDirectory([
            "r.yaml":
                "rule: r\nkind: auto_complete\nreads: {records: [vaccine], events: []}\nexpr: '[.records[], .events[]]'\n"
        ])
        let input = """
            {"dog": {"id": "d"}, "block": {"id": "b"}, "events": [{"type": "course_started"}],
             "records": [{"id": "r1", "kind": "vaccine"}, {"id": "r2", "kind": "weight"}]}
            """
        let run = journey(
            "eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "--input", "-",
            stdin: Array(input.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == #"[{"id":"r1","kind":"vaccine"}]"# + "\n")
        let traced = journey(
            "eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "--input", "-", "--trace",
            stdin: Array(input.utf8))
        #expect(traced.stderr.contains("reads:    events: []; records: [vaccine] (the input is narrowed to these)"))
    }

    /// With `within`, `journey eval` narrows the input by time at the `now` it evaluates at
    /// (`--now`): the older records never reach the rule.
    @Test func aRuleThatReadsATimeWindowSeesOnlyThatTime() throws {
        let rules = try TemporaryDirectory([
            "r.yaml":
                "rule: r\nkind: auto_complete\nreads: {records: [weight], within: 7d}\nexpr: '[.records[] | {id}]'\n"
        ])
        let input = """
            {"dog": {"id": "d"}, "block": {"id": "b"}, "events": [],
             "records": [{"id": "old", "kind": "weight", "recorded_at": "2026-11-21T23:59:59Z"},
                         {"id": "edge", "kind": "weight", "recorded_at": "2026-11-22T01:00:00+01:00"},
                         {"id": "new", "kind": "weight", "recorded_ts": 1795435200}]}
            """
        let run = journey(
            "eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "--input", "-",
            "--now", "2026-11-29T00:00:00Z", stdin: Array(input.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == #"[{"id":"edge"},{"id":"new"}]"# + "\n")
        let traced = journey(
            "eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "--input", "-",
            "--now", "2026-11-29T00:00:00Z", "--trace", stdin: Array(input.utf8))
        #expect(
            traced.stderr.contains(
                "reads:    records: [weight]; within: 7d (the input is narrowed to these, since 2026-11-22T00:00:00Z)"),
            "\(traced.stderr)")
    }

    @Test func outputBreakingTheContractShowsIt() throws {
        let rules = try TemporaryDirectory(["r.yaml": "rule: r\nkind: recommendation\nexpr: '[1, 2]'\n"])
        let run = journey(
            "eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "--input", "-",
            stdin: Array(#"{"dog": {}, "blocks": []}"#.utf8))
        #expect(run.status == 1)
        #expect(run.stderr.contains("rule `r` broke the recommendation contract"))
        #expect(run.stderr.contains("got array [1,2]"))
    }
}

@Suite struct RulesCommandTests {
    @Test func listsRules() {
        let run = journey("rules", "--rules", Repository.rules)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("RULE"))
        let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("recommendation ") } ?? ""
        #expect(line.contains(" recommendation ") && line.contains("control, by-branch"))
        // Onboarding steps' triggers are rules too, generated from the flow files.
        #expect(run.stdout.contains("onboarding.first_tracker.guided.type_name"))
    }

    @Test func json() throws {
        let report = try JV.parse(journey("rules", "--rules", Repository.rules, "--format", "json").stdout).json()
        let recommendation = try #require(report["rules"]?.arrayValue?.first { $0["id"] == "recommendation" })
        #expect(recommendation["variants"] == ["control", "by-branch"])
        #expect(recommendation["experiment"] == "recommendation-v2")
        #expect(recommendation["budget_ms"] == 250)
    }

    @Test func kinds() {
        let run = journey("rules", "--kinds")
        for kind in [
            "recommendation", "auto_complete", "onboarding_trigger", "challenge_metric", "challenge_completion",
            "habit_stat", "personal_note",
            "value",
        ] {
            #expect(run.stdout.contains(kind))
        }
    }
}
