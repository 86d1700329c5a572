import Core
import Foundation

/// A condition a test waited for that did not come true by its deadline: what it waited for,
/// how long, and where the wait is in the tests.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test waited for, in its words.
    public var what: String
    /// How long it waited.
    public var timeout: Duration
    /// `File.swift:line` of the wait.
    public var place: String

    public var description: String {
        "\(place): waited \(timeout) for \(what), in vain"
    }
}

/// Checks `value` until it gives something, and gives that; checked at once, then at growing
/// intervals (1 ms, doubling up to 50 ms), so a condition that comes true soon is seen soon and
/// a slow one costs little. Tests never sleep a fixed time: they wait for what they need.
///
/// - Parameters:
///   - what: what is awaited, for the failure (`"the worker's pid"`).
///   - timeout: how long at most. Only a failing test waits this long, so it is generous:
///     a loaded machine (CI, two cores shared) is slow.
/// - Throws: ``WaitTimedOut`` naming `what` once `timeout` has passed; an error `value` throws.
public func waitFor<T>(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(60), fileID: String = #fileID, line: Int = #line,
    _ value: () throws -> T?
) throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var interval = Duration.milliseconds(1)
    while true {
        if let found = try value() { return found }
        guard clock.now < deadline else {
            throw WaitTimedOut(what: what(), timeout: timeout, place: "\(fileID):\(line)")
        }
        Thread.sleep(forTimeInterval: interval.seconds)
        interval = min(interval * 2, .milliseconds(50))
    }
}

/// Waits until `condition` holds (as ``waitFor(_:timeout:fileID:line:_:)``).
/// - Throws: ``WaitTimedOut`` naming `what` once `timeout` has passed.
public func waitUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(60), fileID: String = #fileID, line: Int = #line,
    _ condition: () throws -> Bool
) throws {
    try waitFor(what(), timeout: timeout, fileID: fileID, line: line) { try condition() ? () : nil }
}

/// Lets `duration` pass, for the one kind of test that needs it: one where the code under test
/// must see time go by (a budget spent, a rate limit's window over, a lock held while another
/// waits for it). `why` says which; a test waiting for something to happen uses
/// ``waitUntil(_:timeout:fileID:line:_:)`` instead.
public func letTimePass(_ duration: Duration, for why: String) {
    _ = why
    Thread.sleep(forTimeInterval: duration.seconds)
}
