import CSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A rate (tokens per second) and a burst (tokens a full bucket holds).
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    public var description: String { "\(Self.format(perSecond))/s, burst \(Self.format(burst))" }

    /// `value` as flags and messages write it: 50, or 0.5.
    public static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Token buckets by key (a user) in memory every worker of a service shares (a table of the
/// ``ControlBlock``), so that a user's rate counts the same whichever worker answers.
///
/// Each bucket is one 64-bit word, changed by compare-and-swap (the generic cell rate
/// algorithm): its low 44 bits are the time, in 10 µs units of the machine's monotonic clock,
/// at which the bucket is full again; its high 20 bits a tag of the key's hash. Taking `n`
/// tokens moves that time on by `n / rate`, and is refused while it would end up more than
/// `burst / rate` ahead of now. A bucket that is full is as good as none, so a key takes the
/// word with its tag among 4 neighbours, else one that is full; only when all 4 are busy with
/// other keys does it share the first one (a stricter limit, never a looser one).
///
/// A take larger than the burst is allowed when the bucket is full (a full batch of events);
/// the wait after it is its size over the rate.
///
/// `@unchecked Sendable`: the table's words are only read and changed by atomic operations,
/// and the table lives as long as the control block that holds it.
struct SharedRateLimiter: @unchecked Sendable {
    let limit: RateLimit
    private let words: UnsafeMutablePointer<UInt64>
    private let count: Int
    /// Now, in 10 µs units (injected by tests).
    private let clock: @Sendable () -> UInt64

    static let timeBits: UInt64 = 44
    static let timeMask: UInt64 = (1 << timeBits) - 1
    static let unitsPerSecond = 100_000.0
    static let neighbours = 4

    init(
        limit: RateLimit, words: UnsafeMutablePointer<UInt64>, count: Int,
        clock: @escaping @Sendable () -> UInt64 = Self.now
    ) {
        precondition(count > 0 && count & (count - 1) == 0, "a power of two")
        self.limit = limit
        self.words = words
        self.count = count
        self.clock = clock
    }

    /// The monotonic clock in 10 µs units.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return (UInt64(time.tv_sec) * 100_000 + UInt64(time.tv_nsec) / 10_000) & timeMask
    }

    /// What taking tokens gave: allowed, or refused with the seconds until it would be allowed.
    enum Outcome: Equatable {
        case allowed
        case refused(retryAfterSeconds: Double)
    }

    /// Takes `tokens` from `key`'s bucket.
    func take(_ tokens: Int, for key: String) -> Outcome {
        let hash = Self.hash(key)
        let tag = hash >> Self.timeBits
        let interval = Self.unitsPerSecond / limit.perSecond
        let tolerance = UInt64((limit.burst * interval).rounded(.up))
        let cost = UInt64((Double(tokens) * interval).rounded(.up))
        while true {
            let now = clock()
            let (word, current) = bucket(hash: hash, tag: tag, now: now)
            let fullAgain = current & Self.timeMask
            let start = max(fullAgain, now)
            let next = start + cost
            if start > now, next - now > tolerance {
                return .refused(retryAfterSeconds: Double(next - now - tolerance) / Self.unitsPerSecond)
            }
            if journey_atomic_compare_exchange(word, current, (tag << Self.timeBits) | (next & Self.timeMask)) {
                return .allowed
            }
        }
    }

    /// The word for `tag` near `hash`, with its value: the one with the tag, else a full one
    /// (its time is not after now, so it counts as full whoever had it), else the first.
    private func bucket(hash: UInt64, tag: UInt64, now: UInt64) -> (UnsafeMutablePointer<UInt64>, UInt64) {
        var idle: (UnsafeMutablePointer<UInt64>, UInt64)?
        for probe in 0..<Self.neighbours {
            let word = words + Int((hash &+ UInt64(probe)) & UInt64(count - 1))
            let value = journey_atomic_load(word)
            if value >> Self.timeBits == tag { return (word, value) }
            if idle == nil, value & Self.timeMask <= now { idle = (word, value) }
        }
        if let idle { return idle }
        let first = words + Int(hash & UInt64(count - 1))
        return (first, journey_atomic_load(first))
    }

    /// FNV-1a, 64-bit.
    static func hash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
