import CJQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops evaluations that run past their budget, by calling `jq_halt` on their state.
///
/// libjq has no timeout, but `jq_next` checks the halted flag before every instruction, so a
/// halt from another thread stops `def f: f; f`, `repeat(1)` or `[range(1e9)]` within
/// milliseconds. It cannot interrupt one long C builtin (a huge sort), which ends first.
///
/// One thread serves the whole process: an evaluation registers its state and deadline
/// (``begin(_:timeout:)``) and unregisters when done (``end(_:)``); both take one lock, and the
/// thread only wakes when the earliest deadline passes.
///
/// `@unchecked Sendable`: every mutable field is read and written with `mutex` held. `jq_halt`
/// is called with `mutex` held and only for a registered evaluation, so it can never reach a
/// state whose evaluation has ended (and thus never the next one). Programs never halt
/// themselves (the sandbox turns `halt` into an error), so libjq's `assert(!halted)` holds.
final class Watchdog: @unchecked Sendable {
    static let shared = Watchdog()

    private struct Entry {
        let state: OpaquePointer
        let deadline: UInt64
        let name: String
        var fired = false
        var reportedStuck = false
    }

    /// Called when a halted evaluation is still running `stuckGrace` past its deadline.
    private var stuckHandler: (@Sendable (StuckEvaluation) -> Void)?
    private var stuckGrace: UInt64 = .max

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var entries: [UInt64: Entry] = [:]
    private var nextTicket: UInt64 = 1
    private var sleepingUntil: UInt64 = .max
    private var threadStarted = false

    private init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if os(Linux)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Registers an evaluation of `state` that must end within `timeout`; returns its ticket.
    func begin(_ state: OpaquePointer, timeout: Duration, name: String) -> UInt64 {
        let deadline = Self.now() &+ Self.nanoseconds(timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !threadStarted { startThread() }
        let ticket = nextTicket
        nextTicket += 1
        entries[ticket] = Entry(state: state, deadline: deadline, name: name)
        if deadline < sleepingUntil { pthread_cond_signal(condition) }
        return ticket
    }

    /// Unregisters an evaluation; returns whether it was halted for running out of time.
    func end(_ ticket: UInt64) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return entries.removeValue(forKey: ticket)?.fired ?? false
    }

    /// Installs `handler`, called on the watchdog's thread (once per evaluation) when an
    /// evaluation is still running `grace` after it was halted: it is inside one long C
    /// builtin, or allocating, and cannot be stopped in-process. A service ends the process.
    func onStuck(grace: Duration, _ handler: @escaping @Sendable (StuckEvaluation) -> Void) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        stuckHandler = handler
        stuckGrace = Self.nanoseconds(grace)
        if !threadStarted { startThread() }
        pthread_cond_signal(condition)
    }

    private func startThread() {
        threadStarted = true
        var thread = pthread_t()
        let context = Unmanaged.passUnretained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                #if canImport(Darwin)
                    let watchdog = Unmanaged<Watchdog>.fromOpaque(context).takeUnretainedValue()
                #else
                    let watchdog = Unmanaged<Watchdog>.fromOpaque(context!).takeUnretainedValue()
                #endif
                watchdog.run()
                return nil
            }, context)
        precondition(result == 0, "cannot start the jq watchdog thread (error \(result))")
        pthread_detach(thread)
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.now()
            var earliest = UInt64.max
            var stuck: [StuckEvaluation] = []
            for (ticket, entry) in entries {
                if !entry.fired {
                    if entry.deadline <= now {
                        entries[ticket]!.fired = true
                        // Exit code and message are non-allocating jvs; jq_start frees them.
                        jq_halt(entry.state, jv_number(124), jv_invalid())
                    } else {
                        earliest = min(earliest, entry.deadline)
                        continue
                    }
                }
                guard stuckHandler != nil, !entry.reportedStuck else { continue }
                let stuckAt = entry.deadline &+ stuckGrace
                if stuckAt <= now {
                    entries[ticket]!.reportedStuck = true
                    stuck.append(StuckEvaluation(name: entry.name, overrun: Double(now - entry.deadline) / 1e9))
                } else {
                    earliest = min(earliest, stuckAt)
                }
            }
            if let handler = stuckHandler, !stuck.isEmpty {
                pthread_mutex_unlock(mutex)
                for evaluation in stuck { handler(evaluation) }
                pthread_mutex_lock(mutex)
                continue
            }
            sleepingUntil = earliest
            if earliest == .max {
                pthread_cond_wait(condition, mutex)
            } else {
                var until = timespec(tv_sec: Int(earliest / 1_000_000_000), tv_nsec: Int(earliest % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &until)
            }
        }
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (total, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max / 2 : total &+ UInt64(attoseconds / 1_000_000_000)
    }
}

/// An evaluation that did not stop after it was halted.
public struct StuckEvaluation: Sendable {
    /// The program's name (the rule id).
    public var name: String
    /// Seconds past its deadline.
    public var overrun: Double
}

/// The process-wide guard of last resort for evaluations that cannot be halted.
public enum EvaluationGuard {
    /// Calls `handler` (on the watchdog's thread, once per evaluation) when an evaluation is
    /// still running `grace` after its budget ran out and it was halted. libjq cannot interrupt
    /// one long C builtin (a huge sort, a giant string), nor bound memory: only ending the
    /// process helps, which is what a service worker does here.
    public static func onStuck(grace: Duration, _ handler: @escaping @Sendable (StuckEvaluation) -> Void) {
        Watchdog.shared.onStuck(grace: grace, handler)
    }
}
