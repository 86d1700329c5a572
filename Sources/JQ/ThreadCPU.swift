#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calling thread's CPU clock, and a reading of it kept per thread so that starting an
/// evaluation rarely pays for a system call.
///
/// Each thread keeps its clock and its last reading (with the wall time it was taken) under
/// a pthread key; ``start(now:maximumAge:)`` reads the clock again only when that reading is
/// older than `maximumAge`. A reading taken before the start is never more than the CPU time
/// at the start, and falls short of it by at most `maximumAge` (a thread's CPU time grows no
/// faster than the wall clock): CPU used since it is an upper bound, too high by at most that.
enum ThreadCPU {
    /// A thread's CPU clock and a reading of it (nanoseconds) taken no later than the start.
    struct Start {
        let clock: clockid_t
        let reading: UInt64
    }

    private struct Kept {
        var clock: clockid_t
        var readAt: UInt64
        var reading: UInt64
    }

    private static let key: pthread_key_t? = {
        #if os(Linux)
            var key = pthread_key_t()
            guard pthread_key_create(&key, { $0?.deallocate() }) == 0 else { return nil }
            return key
        #else
            return nil
        #endif
    }()

    /// Where the calling thread's CPU time stands, `now` being the monotonic wall clock in
    /// nanoseconds; nil where threads' CPU clocks cannot be read (the budget is then wall time).
    static func start(now: UInt64, maximumAge: UInt64) -> Start? {
        #if os(Linux)
            guard let key else { return nil }
            if let kept = pthread_getspecific(key)?.assumingMemoryBound(to: Kept.self) {
                if now &- kept.pointee.readAt > maximumAge, let reading = read(kept.pointee.clock) {
                    kept.pointee.readAt = now
                    kept.pointee.reading = reading
                }
                return Start(clock: kept.pointee.clock, reading: kept.pointee.reading)
            }
            var clock = clockid_t()
            guard pthread_getcpuclockid(pthread_self(), &clock) == 0, let reading = read(clock) else { return nil }
            let kept = UnsafeMutablePointer<Kept>.allocate(capacity: 1)
            kept.initialize(to: Kept(clock: clock, readAt: now, reading: reading))
            guard pthread_setspecific(key, kept) == 0 else {
                kept.deallocate()
                return nil
            }
            return Start(clock: clock, reading: reading)
        #else
            return nil
        #endif
    }

    /// The time of `clock` in nanoseconds (a thread's CPU clock, or the monotonic clock), nil
    /// if it cannot be read. Any thread may read another thread's CPU clock of the same process
    /// while that thread runs.
    static func read(_ clock: clockid_t) -> UInt64? {
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return nil }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
