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
/// (``begin(_:budget:name:)``) and unregisters when done (``end(_:)``); both take one lock, and the
/// thread only wakes when the earliest deadline passes. An evaluation signals the thread only
/// when its deadline is earlier than the thread's next wake. While evaluations keep coming, a
/// thread that finds none running sleeps one budget (the latest begun) instead of until
/// signalled, so that the next evaluation of that budget need not wake it: without this, when
/// the thread got to run only after each evaluation had ended (the cores busy, or under
/// valgrind), every evaluation of a stream woke it (a futex call and a context switch). It
/// waits for a signal again once a whole such sleep saw no evaluation begin.
///
/// A budget is CPU time of the evaluating thread, not time on the wall: a worker descheduled
/// on a loaded machine (or under valgrind, which runs one thread at a time) must not have its
/// events refused for time it did not run. Reading a thread's CPU clock is a system call
/// (~0.4 µs, a few per cent of a small rule), so it is read only when the wall deadline
/// passes; the start is a reading the thread took at most ``cpuReadingAge`` before (see
/// ``ThreadCPU``), so an evaluation is halted at most that much CPU time early, never late.
/// Its CPU time cannot grow faster than the wall clock, so a deadline that finds budget left
/// is moved by exactly what is left.
///
/// `@unchecked Sendable`: every mutable field is read and written with `mutex` held. `jq_halt`
/// is called with `mutex` held and only for a registered evaluation, so it can never reach a
/// state whose evaluation has ended (and thus never the next one). Programs never halt
/// themselves (the sandbox turns `halt` into an error), so libjq's `assert(!halted)` holds.
final class Watchdog: @unchecked Sendable {
    static let shared = Watchdog()

    private struct Entry {
        let ticket: UInt64
        let state: OpaquePointer
        /// When to look next: the wall time by which the budget could at the earliest be spent.
        var deadline: UInt64
        let budget: UInt64
        /// The evaluating thread's CPU clock and a reading of it from before the start.
        let cpu: ThreadCPU.Start?
        let name: String
        var fired = false
        var haltedAt: UInt64 = 0
        var reportedStuck = false
    }

    /// How old the CPU reading an evaluation starts from may be (nanoseconds): the most CPU
    /// time by which an evaluation can be halted early.
    static let cpuReadingAge: UInt64 = 1_000_000

    /// Called when a halted evaluation is still running `stuckGrace` after it was halted.
    private var stuckHandler: (@Sendable (StuckEvaluation) -> Void)?
    private var stuckGrace: UInt64 = .max

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The evaluations running, in no order: as many as threads evaluate at once, so a list
    /// searched from the end costs less than a dictionary's hashing (~0.6 k instructions an
    /// evaluation).
    private var entries: [Entry] = []
    private var nextTicket: UInt64 = 1
    private var sleepingUntil: UInt64 = .max
    private var threadStarted = false
    /// The budget of the latest evaluation begun, and ``nextTicket`` when the thread last looked:
    /// whether evaluations began since.
    private var latestBudget: UInt64 = 0
    private var nextTicketSeen: UInt64 = 1
    private var signals = 0

    /// How many times an evaluation has woken the thread.
    var signalCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return signals
    }

    /// Whether the thread has looked at the evaluations since the last one began.
    var hasSeenEveryBegin: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return nextTicketSeen == nextTicket
    }

    /// A watchdog of its own, for tests (it must live as long as the process: its thread keeps
    /// an unretained reference); the process shares ``shared``.
    init() {
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
        begin(state, budget: Self.nanoseconds(timeout), name: name)
    }

    /// Like ``begin(_:timeout:name:)``, with the budget in nanoseconds (``nanoseconds(_:)``).
    func begin(_ state: OpaquePointer, budget: UInt64, name: String) -> UInt64 {
        let now = Self.now()
        let deadline = now &+ budget
        let cpu = ThreadCPU.start(now: now, maximumAge: Self.cpuReadingAge)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !threadStarted { startThread() }
        let ticket = nextTicket
        nextTicket += 1
        entries.append(Entry(ticket: ticket, state: state, deadline: deadline, budget: budget, cpu: cpu, name: name))
        latestBudget = budget
        if deadline < sleepingUntil {
            // Not again for the evaluations whose deadlines fall after the wake it now sets.
            sleepingUntil = deadline
            signals += 1
            pthread_cond_signal(condition)
        }
        return ticket
    }

    /// Unregisters an evaluation; returns whether it was halted for running out of time.
    func end(_ ticket: UInt64) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard let index = entries.lastIndex(where: { $0.ticket == ticket }) else { return false }
        entries.swapAt(index, entries.count - 1)
        return entries.removeLast().fired
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
            for index in entries.indices {
                let entry = entries[index]
                if !entry.fired {
                    guard entry.deadline <= now else {
                        earliest = min(earliest, entry.deadline)
                        continue
                    }
                    if let left = entry.cpu.flatMap({ Self.budgetLeft(entry.budget, since: $0) }) {
                        entries[index].deadline = now &+ left
                        earliest = min(earliest, now &+ left)
                        continue
                    }
                    entries[index].fired = true
                    entries[index].haltedAt = now
                    // Exit code and message are non-allocating jvs; jq_start frees them.
                    jq_halt(entry.state, jv_number(124), jv_invalid())
                }
                guard stuckHandler != nil, !entry.reportedStuck else { continue }
                let haltedAt = entries[index].haltedAt
                let stuckAt = haltedAt &+ stuckGrace
                if stuckAt <= now {
                    entries[index].reportedStuck = true
                    stuck.append(StuckEvaluation(name: entry.name, overrun: Double(now - haltedAt) / 1e9))
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
            // None running, but some began since the last look: sleep one budget, so that the
            // next evaluation of that budget finds the thread awake before its deadline.
            let began = nextTicket != nextTicketSeen
            nextTicketSeen = nextTicket
            if earliest == .max, began, latestBudget > 0 { earliest = now &+ latestBudget }
            sleepingUntil = earliest
            if earliest == .max {
                pthread_cond_wait(condition, mutex)
            } else {
                var until = timespec(tv_sec: Int(earliest / 1_000_000_000), tv_nsec: Int(earliest % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &until)
            }
        }
    }

    /// The CPU time the evaluation may still use (nanoseconds, more than zero), or nil when it
    /// has used its budget or its thread's clock cannot be read.
    private static func budgetLeft(_ budget: UInt64, since start: ThreadCPU.Start) -> UInt64? {
        guard let used = ThreadCPU.read(start.clock).map({ $0 &- start.reading }), used < budget else { return nil }
        return budget - used
    }

    private static func now() -> UInt64 {
        ThreadCPU.read(CLOCK_MONOTONIC) ?? 0  // the monotonic clock is always readable
    }

    /// `duration` in nanoseconds, as budgets are kept (negative: 0; too long: a century's worth).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
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
    /// Seconds since it was halted.
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
