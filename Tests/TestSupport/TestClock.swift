import Core
import Synchronization

/// A settable clock for the code under test (an ingest policy's `clock`), in seconds since
/// 1970: a harness sets it before each event, and reads from any thread see the last set time.
///
/// ```swift
/// let clock = TestClock(at: "2026-11-29T12:00:00Z")
/// let policy = IngestPolicy(clock: clock.reading)
/// clock.now += 60
/// ```
public final class TestClock: Sendable {
    private let seconds: Mutex<Double>

    /// A clock at `seconds` since 1970 (default: 0, for a harness that sets it per event).
    public init(_ seconds: Double = 0) {
        self.seconds = Mutex(seconds)
    }

    /// A clock at `time`, an RFC 3339 date-time with its offset.
    public convenience init(at time: String) {
        guard let seconds = Timestamp.parse(time) else {
            preconditionFailure("not a date-time with an offset: \(time)")
        }
        self.init(seconds)
    }

    /// The time now, in seconds since 1970; set it to move the clock (either way).
    public var now: Double {
        get { seconds.withLock { $0 } }
        set { seconds.withLock { $0 = newValue } }
    }

    /// Moves the clock to `time` unless it is already later: a clock that never goes back.
    public func advance(to time: Double) {
        seconds.withLock { $0 = max($0, time) }
    }

    /// The clock as the function that code under test calls for the time.
    public var reading: @Sendable () -> Double {
        { [self] in now }
    }
}
