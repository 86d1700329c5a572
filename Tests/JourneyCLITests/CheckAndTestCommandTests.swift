import Foundation
import JQ
import TestSupport
import Testing

@Suite struct CheckCommandTests {
    @Test func bundledRulesCheckClean() {
        let run = journey("check", "--rules", Repository.rules, "--plugins", Repository.plugins)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("ok: "))
        #expect(run.stdout.contains("revision "))
    }

    @Test func diagnosticsLookLikeACompilersWithTheSourceLine() throws {
        let rules = try TemporaryDirectory([
            "r.yaml": "rule: r\nkind: value\nexpr: |\n  .a\n  | nope\n",
            "s.yaml": "rule: s\nkind: valeu\nexpr: .\n",
        ])
        let run = journey("check", "--rules", rules.path, "--plugins", rules.path + "/none")
        #expect(run.status == 2)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "\(rules.path)/r.yaml:5:5: error: nope/0 is not defined [jq_compile]")
        #expect(lines[1] == "      | nope")
        #expect(lines[2] == "        ^")
        #expect(lines[3].hasPrefix("\(rules.path)/s.yaml:2:7: error: unknown kind `valeu`; did you mean `value`?"))
        #expect(lines.last == "2 errors, 0 warnings")
    }

    @Test func jsonReport() throws {
        let rules = try TemporaryDirectory(["r.yaml": "rule: r\nkind: value\nexpr: '.['\n"])
        let run = journey("check", "--rules", rules.path, "--plugins", rules.path + "/none", "--format", "json")
        #expect(run.status == 2)
        let report = try JV.parse(run.stdout).json()
        #expect(report["ok"] == false)
        #expect(report["errors"] == 1)
        let diagnostic = try #require(report["diagnostics"]?[0])
        #expect(diagnostic["code"] == "jq_compile")
        #expect(diagnostic["line"] == 3)
        #expect(diagnostic["file"] == .string(rules.path + "/r.yaml"))
    }

    @Test func otherCommandsRefuseBrokenRulesWithExit2() throws {
        let rules = try TemporaryDirectory(["r.yaml": "rule: r\nkind: value\n"])
        for command in ["test", "rules"] {
            let run = journey(command, "--rules", rules.path, "--plugins", rules.path + "/none")
            #expect(run.status == 2)
            #expect(run.stderr.contains("missing_field"))
            #expect(run.stderr.contains("Error: the rules do not load (1 error)"))
        }
        #expect(journey("eval", "r", "--rules", rules.path, "--plugins", rules.path + "/none", "-n").status == 2)
    }
}

@Suite struct TestCommandTests {
    @Test func bundledTestsPass() {
        let run = journey("test", "--rules", Repository.rules)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.hasSuffix(" passed, 0 failed\n"))
    }

    @Test func failureShowsADiff() throws {
        let rules = try TemporaryDirectory([
            "r.yaml": """
            rule: r
            kind: value
            expr: '{a: 1, b: .}'
            tests:
              - name: matches
                input: 2
                expect: {a: 1, b: 2}
              - name: differs
                input: 3
                expect: {a: 1, b: 4}
            """
        ])
        let run = journey("test", "--rules", rules.path, "--plugins", rules.path + "/none")
        #expect(run.status == 3)
        #expect(run.stdout.contains("FAIL r › differs\n  at \(rules.path)/r.yaml:8:5\n  wrong result\n"))
        #expect(run.stdout.contains("-   \"b\": 4"))
        #expect(run.stdout.contains("+   \"b\": 3"))
        #expect(!run.stdout.contains("PASS"))
        #expect(run.stdout.hasSuffix("1 passed, 1 failed\n"))
        #expect(
            journey("test", "--rules", rules.path, "--plugins", rules.path + "/none", "-v").stdout.contains(
                "PASS r › matches"))
    }

    @Test func runFiltersByName() throws {
        let rules = try TemporaryDirectory([
            "r.yaml":
                "rule: r\nkind: value\nexpr: .\ntests:\n  - {name: one, input: 1, expect: 1}\n  - {name: two, input: 2, expect: 3}\n"
        ])
        #expect(
            journey("test", "--rules", rules.path, "--plugins", rules.path + "/none", "--run", "one$").stdout
                == "1 passed, 0 failed\n")
        let none = journey("test", "--rules", rules.path, "--plugins", rules.path + "/none", "--run", "nothing")
        #expect(none.status == 1)
        #expect(none.stderr.contains("no test matches --run 'nothing'"))
    }

    /// The loop never ends by itself: the budget ends it, and a hang fails the test at its time
    /// limit (``hangLimit``: no bound on the wall clock, which a loaded machine stretches).
    @Test(.hangLimit) func aHangingTestFailsAfterTheTimeoutNamingRuleAndTest() throws {
        let rules = try TemporaryDirectory([
            "r.yaml":
                "rule: spin\nkind: value\nexpr: 'def f: f; f'\ntests:\n  - {name: forever, input: null, expect: 1}\n"
        ])
        let run = journey("test", "--rules", rules.path, "--plugins", rules.path + "/none", "--timeout", "200ms")
        #expect(run.status == 3)
        #expect(run.stdout.contains("FAIL spin › forever"))
        #expect(run.stdout.contains("timed out: rule `spin` ran past its time budget of 200ms"))
    }

    @Test func jsonReport() throws {
        let run = journey("test", "--rules", Repository.rules, "--format", "json")
        let report = try JV.parse(run.stdout).json()
        #expect(report["failed"] == 0)
        let tests = try #require(report["tests"]?.arrayValue)
        #expect(tests.count == Int(report["passed"]?.numberValue ?? -1))
        #expect(tests.allSatisfy { $0["status"] == "passed" && $0["file"] != nil && $0["line"] != nil })
    }
}
