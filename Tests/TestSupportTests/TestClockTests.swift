import TestSupport
import Testing

/// The harnesses' settable clock: read from any thread, set by the harness, never back when
/// advanced.
@Suite struct TestClockTests {
    @Test func theTestClockIsSetAndNeverGoesBackWhenAdvanced() {
        let clock = TestClock(at: "2026-11-29T12:00:00Z")
        let read = clock.reading
        #expect(read() == 1_795_953_600)
        clock.now += 60
        clock.advance(to: 0)
        #expect(read() == 1_795_953_660)
        clock.advance(to: 1_795_953_700)
        #expect(clock.now == 1_795_953_700)
    }
}
