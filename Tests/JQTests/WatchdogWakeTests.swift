import CJQ
import Foundation
import TestSupport
import Testing

@testable import JQ

/// The watchdog's thread is woken only when an evaluation's deadline comes before the thread's
/// next wake: a stream of evaluations of one budget wakes it once, not once each (each wake is a
/// futex call and a context switch on a busy machine), also when the thread runs only after each
/// evaluation has ended; a shorter budget still wakes it, so that it is halted in time.
@Suite struct WatchdogWakeTests {
    /// Watchdogs of their own, alive as long as the process (their threads keep them unretained).
    static let stream = Watchdog()
    static let shorter = Watchdog()

    @Test func aStreamOfEvaluationsWakesTheThreadOnce() throws {
        var state = jq_init()
        defer { jq_teardown(&state) }
        let watchdog = Self.stream
        // Each evaluation ends before the thread has woken for it, and the thread then runs
        // (as on a machine whose cores are busy): it finds none running. After the first, it
        // sleeps one budget; the others must not wake it.
        for number in 0..<20 {
            let ticket = watchdog.begin(state!, timeout: .seconds(30), name: "stream")
            #expect(!watchdog.end(ticket))
            if number == 0 {
                try waitUntil("the watchdog's thread to look after the first evaluation") {
                    watchdog.hasSeenEveryBegin
                }
            }
        }
        // The first evaluation wakes it; the others did too before it slept one budget when it
        // found none running (20 here).
        #expect(watchdog.signalCount <= 2)
    }

    @Test func aShorterBudgetStillWakesTheThread() {
        var state = jq_init()
        defer { jq_teardown(&state) }
        let watchdog = Self.shorter
        _ = watchdog.end(watchdog.begin(state!, timeout: .seconds(30), name: "long"))
        let before = watchdog.signalCount
        let ticket = watchdog.begin(state!, timeout: .milliseconds(5), name: "short")
        #expect(watchdog.signalCount == before + 1, "its deadline is before the thread's next wake")
        _ = watchdog.end(ticket)
    }
}
