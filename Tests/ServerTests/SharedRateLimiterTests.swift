import Foundation
import Synchronization
import Testing

@testable import Server

/// The token buckets shared by the workers, on a fixed clock (10 µs units).
struct SharedRateLimiterTests {
    /// One step: at `ms` milliseconds, take `tokens`; nil: allowed, else refused with that wait.
    typealias Step = (ms: Int, tokens: Int, wait: Double?)

    static let cases: [(String, RateLimit, [Step])] = [
        (
            "a burst, then one token per interval", RateLimit(perSecond: 10, burst: 3),
            [(0, 1, nil), (0, 1, nil), (0, 1, nil), (0, 1, 0.1), (50, 1, 0.05), (100, 1, nil), (100, 1, 0.1)]
        ),
        (
            "an idle bucket fills up to its burst, not beyond", RateLimit(perSecond: 10, burst: 2),
            [(0, 2, nil), (10_000, 1, nil), (10_000, 1, nil), (10_000, 1, 0.1)]
        ),
        (
            "a take larger than the burst passes on a full bucket, then waits its size",
            RateLimit(perSecond: 100, burst: 50), [(0, 1000, nil), (0, 1, 9.51), (9_500, 1, 0.01), (9_510, 1, nil)]
        ),
        (
            "a take larger than what is left is refused whole", RateLimit(perSecond: 1, burst: 10),
            [(0, 8, nil), (0, 3, 1), (0, 2, nil), (0, 1, 1)]
        ),
    ]

    @Test(arguments: cases)
    func bucketsFollowTheRateAndTheBurst(_ name: String, _ limit: RateLimit, _ steps: [Step]) {
        let table = Table(words: 64)
        let start: UInt64 = 1_000_000
        for (index, step) in steps.enumerated() {
            let now = start + UInt64(step.ms * 100)
            let limiter = table.limiter(limit) { now }
            let outcome = limiter.take(step.tokens, for: "ann")
            let expected: SharedRateLimiter.Outcome = step.wait.map { .refused(retryAfterSeconds: $0) } ?? .allowed
            if case .refused(let wait) = outcome, let want = step.wait {
                #expect(abs(wait - want) < 0.001, "\(name), step \(index + 1): waits \(wait), want \(want)")
            } else {
                #expect(outcome == expected, "\(name), step \(index + 1)")
            }
        }
    }

    /// Users have buckets of their own; in a table far too small for them, a user may share a
    /// bucket (a stricter limit) but never gets more than the burst.
    @Test(arguments: [64, 4])
    func usersDoNotShareABucketUnlessTheTableIsFull(words: Int) {
        let table = Table(words: words)
        let limiter = table.limiter(RateLimit(perSecond: 1, burst: 2)) { 1_000_000 }
        var allowed: [String: Int] = [:]
        for user in (0..<20).map({ "user-\($0)" }) {
            for _ in 0..<5 where limiter.take(1, for: user) == .allowed { allowed[user, default: 0] += 1 }
        }
        #expect(allowed.values.allSatisfy { $0 <= 2 })
        if words == 64 { #expect(allowed.values.reduce(0, +) == 40, "every user gets their own burst") }
    }

    /// Four threads taking from one user's bucket at once get exactly its burst.
    @Test func concurrentTakersGetTheBurstExactly() {
        let table = Table(words: 64)
        let limiter = table.limiter(RateLimit(perSecond: 0.001, burst: 500)) { 1_000_000 }
        let allowed = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<1_000 where limiter.take(1, for: "ann") == .allowed {
                allowed.wrappingAdd(1, ordering: .relaxed)
            }
        }
        #expect(allowed.load(ordering: .relaxed) == 500)
    }

    /// Words standing in for a control block's table.
    final class Table: @unchecked Sendable {
        let words: UnsafeMutablePointer<UInt64>
        let count: Int

        init(words count: Int) {
            self.count = count
            words = .allocate(capacity: count)
            words.initialize(repeating: 0, count: count)
        }

        deinit { words.deallocate() }

        func limiter(_ limit: RateLimit, clock: @escaping @Sendable () -> UInt64) -> SharedRateLimiter {
            SharedRateLimiter(limit: limit, words: words, count: count, clock: clock)
        }
    }
}
