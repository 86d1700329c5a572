import CJQ
import Core
import Foundation
import TestSupport
import Testing

@testable import JQ

/// A released program's compiled state serves the next program of the same text and constants,
/// and nothing of the first program shows through.
@Suite struct CompiledStatePoolTests {
    let now = 1_795_000_000.0

    /// A program text no other test compiles, so the shared pool's entry for it is this test's.
    func unique(_ body: String) -> String {
        "\"\(UUID().uuidString)\" as $unique | \(body)"
    }

    @Test func aReleasedProgramsStateServesTheNextCompilation() throws {
        let source = unique(".a + 1")
        var first: Program? = try Program(source)
        let key = try #require(first?.pooledKey)
        #expect(try first?.outputs(JV(["a": 1]), now: now, timeout: nil).outputs == [2])
        first = nil
        #expect(CompiledStatePool.shared.idleCount(key) == 1)
        let second = try Program(source)
        #expect(CompiledStatePool.shared.idleCount(key) == 0)
        #expect(try second.outputs(JV(["a": 41]), now: now, timeout: nil).outputs == [42])
    }

    @Test func otherConstantsAreAnotherProgram() throws {
        let source = unique("$params.n")
        var five: Program? = try Program(source, constants: ["params": ["n": 5]])
        let fivesKey = try #require(five?.pooledKey)
        five = nil
        let six = try Program(source, constants: ["params": ["n": 6]])
        #expect(try six.outputs(JV(nil), now: now, timeout: nil).outputs == [6])
        #expect(CompiledStatePool.shared.idleCount(fivesKey) == 1)
    }

    @Test func messagesReachTheProgramNowHoldingTheState() throws {
        let source = unique("debug | . * 2")
        var first: Program? = try Program(source)
        _ = try first?.outputs(JV(1), now: now, timeout: nil)
        first = nil
        let second = try Program(source)
        let (outputs, trace) = try second.outputs(JV(3), now: now, timeout: nil)
        #expect(outputs == [6])
        #expect(trace == [TraceEntry(kind: .debug, value: 3)])
    }

    @Test func aStateStoppedByItsBudgetRunsCleanForTheNextProgram() throws {
        let source = unique("if . then (repeat(1) | empty) else . end")
        var stopped: Program? = try Program(source)
        #expect { try stopped?.outputs(JV(true), now: now, timeout: .milliseconds(50)) } throws: {
            ($0 as! JQError).code == .timeout
        }
        stopped = nil
        let next = try Program(source)
        #expect(try next.outputs(JV(false), now: now, timeout: .seconds(5)).outputs == [false])
    }

    @Test func aProgramReadingALibraryIsPooledByTheLibrarysFiles() throws {
        let source = "include \"answer\"; " + unique("answer")
        let library = try TemporaryDirectory(["answer.jq": "def answer: 42;"])
        var first: Program? = try Program(source, libraryDirectory: library.path)
        let key = try #require(first?.pooledKey)
        #expect(key.library != nil)
        first = nil
        #expect(CompiledStatePool.shared.idleCount(key) == 1)

        // Another folder with other contents compiles its own.
        let other = try TemporaryDirectory(["answer.jq": "def answer: 43;"])
        #expect(
            try Program(source, libraryDirectory: other.path).outputs(JV(nil), now: now, timeout: nil).outputs == [43])
        #expect(CompiledStatePool.shared.idleCount(key) == 1)

        // The same file edited in place is another library.
        try library.write("answer.jq", "def answer: 44;")
        let edited = try Program(source, libraryDirectory: library.path)
        #expect(try edited.outputs(JV(nil), now: now, timeout: nil).outputs == [44])
        #expect(edited.pooledKey != key)
        #expect(CompiledStatePool.shared.idleCount(key) == 1)

        // A copy of the first files, in another folder, takes the kept state.
        let copy = try TemporaryDirectory(["answer.jq": "def answer: 42;"])
        let second = try Program(source, libraryDirectory: copy.path)
        #expect(CompiledStatePool.shared.idleCount(key) == 0)
        #expect(try second.outputs(JV(nil), now: now, timeout: nil).outputs == [42])
    }

    @Test func aProgramThatDoesNotCompileLeavesNothing() throws {
        let source = unique(".a |||")
        #expect(throws: JQError.self) { try Program(source) }
        let wrapped = try Sandbox.prepare(source, libraryDirectory: nil).wrappedSource
        let key = CompiledStatePool.Key(wrappedSource: wrapped, constants: [:])
        #expect(CompiledStatePool.shared.idleCount(key) == 0)
    }

    @Test func theOldestIdleStatesAreTornDownPastCapacity() throws {
        let pool = CompiledStatePool(capacity: 2)
        let keys = (0..<3).map { CompiledStatePool.Key(wrappedSource: "\($0)", constants: [:]) }
        for key in keys { pool.give(try #require(jq_init()), for: key) }
        #expect(keys.map(pool.idleCount) == [0, 1, 1])
        let taken = try #require(pool.take(keys[2]))
        var state: OpaquePointer? = taken
        jq_teardown(&state)
        #expect(pool.take(keys[0]) == nil)
        #expect(pool.statistics == CompiledStatePool.Counts(reused: 1, compiled: 1))
    }
}
