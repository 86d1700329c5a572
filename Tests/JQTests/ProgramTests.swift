import Core
import Foundation
import TestSupport
import Testing

@testable import JQ

/// Compiling once, evaluating many times, lazily, with typed errors.
@Suite struct ProgramTests {
    let now = 1_795_000_000.0

    func outputs(_ source: String, _ input: JSON = nil, limit: Int = .max) throws -> [JSON] {
        try Program(source).outputs(JV(input), now: now, timeout: .seconds(5), limit: limit).outputs
    }

    @Test func compiledOnceEvaluatedMany() throws {
        let program = try Program(".a + 1")
        for i in 0..<1000 {
            let result = try program.outputs(JV(["a": .number(Double(i))]), now: now, timeout: nil)
            #expect(result.outputs == [.number(Double(i + 1))])
        }
    }

    @Test func generatorsAreTakenLazily() throws {
        #expect(try outputs("repeat(1)", limit: 3) == [1, 1, 1])
        #expect(try outputs("first(range(1e12))") == [0])
        #expect(try outputs("range(5)", limit: 2) == [0, 1])
    }

    @Test func stoppingEarlyLeavesTheProgramReusable() throws {
        let program = try Program("range(10)")
        _ = try program.outputs(JV(nil), now: now, timeout: nil, limit: 1)
        #expect(try program.outputs(JV(nil), now: now, timeout: nil).outputs.count == 10)
    }

    @Test func syntaxErrorCarriesTheLine() {
        do {
            _ = try Program(".a\n| .b |||\n| .c")
            Issue.record("compiled")
        } catch {
            #expect(error.code == .compileError)
            #expect(error.problems.first?.line == 2)
            #expect(error.problems.first?.message.contains("syntax error") == true)
            #expect(error.problems.first?.message.contains("Unix shell") == false)
        }
    }

    @Test func everyUndefinedFunctionIsReported() {
        do {
            _ = try Program("foo(1)\n| bar")
            Issue.record("compiled")
        } catch {
            #expect(error.problems.map(\.message) == ["foo/1 is not defined", "bar/0 is not defined"])
            #expect(error.problems.map(\.line) == [1, 2])
        }
    }

    @Test func runtimeErrorIsTyped() {
        #expect {
            try outputs(#"1, error("boom")"#)
        } throws: { error in
            let error = error as! JQError
            return error.code == .runtimeError && error.message == "boom"
        }
        #expect {
            try outputs(#"error({"why": "x"})"#)
        } throws: { error in
            (error as! JQError).value == ["why": "x"]
        }
    }

    @Test func haltAndHaltErrorAreTypedErrors() throws {
        #expect {
            try outputs("halt")
        } throws: { ($0 as! JQError).code == .halt }
        #expect {
            try outputs(#""bad dog" | halt_error(3)"#)
        } throws: { error in
            let error = error as! JQError
            return error.code == .halt && error.exitCode == 3 && error.message.contains("bad dog")
        }
        // The state is still usable afterwards.
        let program = try Program("if . then halt_error else 1 end")
        #expect(throws: JQError.self) { try program.outputs(JV(true), now: now, timeout: nil) }
        #expect(try program.outputs(JV(false), now: now, timeout: nil).outputs == [1])
    }

    static let runaways = [
        "def f: f; f", "repeat(1) | empty", "[range(1e9)] | length", "until(false; .)", "last(range(1e12))",
    ]

    @Test(arguments: runaways)
    func runawayProgramsAreStopped(_ source: String) throws {
        let program = try Program(source)
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            try program.outputs(JV(nil), now: now, timeout: .milliseconds(100))
        } throws: { ($0 as! JQError).code == .timeout }
        #expect(clock.now - start < .seconds(3))
        // After a halt, the same state evaluates normally again.
        let quick = try Program(".")
        #expect(try quick.outputs(JV(7), now: now, timeout: .milliseconds(100)).outputs == [7])
    }

    @Test func haltedStateRunsAgain() throws {
        let program = try Program("if . then (def f: f; f) else 2 end")
        #expect(throws: JQError.self) { try program.outputs(JV(true), now: now, timeout: .milliseconds(50)) }
        #expect(try program.outputs(JV(false), now: now, timeout: .milliseconds(50)).outputs == [2])
    }

    /// The budget is the evaluating thread's CPU time: a thread that is not running (here it
    /// sleeps between two outputs, as a worker descheduled on a loaded machine does not run)
    /// spends none of it, however long it waits. On wall time this was halted after 50 ms.
    @Test func timeTheThreadDoesNotRunIsNotCharged() throws {
        let program = try Program("1, 2, 3")
        var outputs: [String] = []
        try program.run(JV(nil), now: now, timeout: .milliseconds(50)) { output in
            outputs.append(output.compactText)
            if outputs.count == 1 {
                letTimePass(.milliseconds(300), for: "six budgets of wall time in which the thread does not run")
            }
            return true
        }
        #expect(outputs == ["1", "2", "3"])
    }

    @Test func nestedRunIsRefused() throws {
        let program = try Program("1, 2")
        #expect {
            try program.run(JV(nil), now: now, timeout: nil) { _ in
                _ = try program.outputs(JV(nil), now: now, timeout: nil)
                return true
            }
        } throws: { ($0 as! JQError).code == .busy }
    }
}
