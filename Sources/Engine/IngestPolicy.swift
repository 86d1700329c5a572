import Foundation

/// The time rules of ingest.
public struct IngestPolicy: Sendable {
    /// Events older than this (by `occurred_at`, when received) are refused as `too_late`.
    public var lateWindow: Duration
    /// Events this far in the future are still accepted (client clocks drift); later ones are
    /// refused as `in_future`.
    public var clockSkew: Duration
    /// The current time, seconds since 1970 (injected by tests and `--now`).
    public var clock: @Sendable () -> Double

    public init(
        lateWindow: Duration = .seconds(7 * 86_400), clockSkew: Duration = .seconds(300),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.lateWindow = lateWindow
        self.clockSkew = clockSkew
        self.clock = clock
    }
}
