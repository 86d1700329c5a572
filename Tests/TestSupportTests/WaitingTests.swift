import Synchronization
import TestSupport
import Testing

/// Waits end as soon as their condition holds, and fail naming what they waited for.
@Suite struct WaitingTests {
    @Test func aWaitEndsWhenItsConditionHolds() throws {
        let checks = Mutex(0)
        let value = try waitFor("the third check") { () -> Int? in
            let count = checks.withLock { count in
                count += 1
                return count
            }
            return count == 3 ? count : nil
        }
        #expect(value == 3)
    }

    @Test func aWaitInVainNamesWhatItWaitedFor() {
        let error = #expect(throws: WaitTimedOut.self) {
            try waitUntil("a condition that never holds", timeout: .milliseconds(20)) { false }
        }
        #expect(error?.what == "a condition that never holds")
        #expect(error?.description.hasPrefix("TestSupportTests/WaitingTests.swift:") == true, "\(error!)")
    }
}
