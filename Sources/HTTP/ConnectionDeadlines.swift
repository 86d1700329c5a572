import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Deadlines for reading requests, which libmicrohttpd lacks (its connection timeout is an
/// idle time, and a client sending one byte every few seconds is never idle): a connection
/// must send a request's headers within `header` of opening or of its previous response, and
/// the body within `body` of its headers. A thread of its own looks every 250 ms and shuts
/// down the socket of a connection past its deadline; libmicrohttpd then sees it closed and
/// frees it. While a request is being answered there is no deadline.
///
/// And a bound on idle connections (waiting for a client to send a request, or the rest of
/// one): when a new connection makes more than `idleLimit`, the one idle the longest is shut
/// down at once. Set below libmicrohttpd's connection limit, it keeps a worker from reaching
/// it, so the worker always accepts: slow clients from many addresses that reconnect as soon as
/// they are closed then wait in no queue in front of other clients (at the limit a worker stops
/// accepting, and new connections wait in the socket's backlog behind the slow ones).
///
/// `@unchecked Sendable`: the table is behind a mutex; the thread stops in ``stop()``.
final class ConnectionDeadlines: @unchecked Sendable {
    let header: Duration
    let body: Duration
    /// Idle connections held at most (0: no bound).
    let idleLimit: Int

    private struct Entry {
        var socket: Int32
        /// Nanoseconds on the monotonic clock; 0: none.
        var deadline: UInt64
        /// When it began to wait for the client (opened, or answered), in the order ``Table``
        /// counts; 0 while a request is being answered, or once it was shed.
        var idleSince: UInt64
    }

    /// The connections by address, and those idle, oldest first (an entry of `idle` is stale
    /// once its connection is no longer idle since that time; skipped, and dropped in time).
    private struct Table {
        var entries: [UInt: Entry] = [:]
        var idle: [(key: UInt, since: UInt64)] = []
        var idleStart = 0
        var idleCount = 0
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }
    }

    /// An entry is removed when libmicrohttpd reports the connection closed, which it does
    /// before it closes the socket, so a socket shut down here under the lock is always still
    /// the connection's.
    private let table = Mutex(Table())
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    /// Connections shut down for passing a deadline.
    let shutDown = Atomic<Int>(0)
    /// Idle connections shut down to make room for new ones.
    let shed = Atomic<Int>(0)

    /// Nil when both deadlines and the idle bound are off (zero).
    init?(header: Duration, body: Duration, idleLimit: Int = 0) {
        guard header > .zero || body > .zero || idleLimit > 0 else { return nil }
        self.header = header
        self.body = body
        self.idleLimit = max(idleLimit, 0)
        guard header > .zero || body > .zero else {
            finished.store(true, ordering: .releasing)
            return
        }
        let thread = Thread { [unowned self] in self.watch() }
        thread.name = "connection deadlines"
        thread.start()
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func deadline(after duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        return Self.now() + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// A connection opened: its first request's headers are due, and it is idle (the one idle
    /// the longest is shed when that makes too many).
    func opened(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        let due = deadline(after: header)
        table.withLock { table in
            let key = UInt(bitPattern: connection)
            table.entries[key] = Entry(socket: socket, deadline: due, idleSince: 0)
            becomeIdle(key, in: &table)
            shedOldest(in: &table)
        }
    }

    /// A request's headers are read: its body is due (it stays idle: the client owes the body).
    func headersRead(_ connection: OpaquePointer) { set(connection, deadline(after: body), idle: nil) }

    /// A request is read whole: no deadline while it is answered, and not idle.
    func requestRead(_ connection: OpaquePointer) { set(connection, 0, idle: false) }

    /// A response is sent: the next request's headers are due, and it is idle again.
    func answered(_ connection: OpaquePointer) { set(connection, deadline(after: header), idle: true) }

    /// The connection is closed.
    func closed(_ connection: OpaquePointer) {
        table.withLock { table in
            guard let entry = table.entries.removeValue(forKey: UInt(bitPattern: connection)) else { return }
            if entry.idleSince != 0 { table.idleCount -= 1 }
        }
    }

    private func set(_ connection: OpaquePointer, _ deadline: UInt64, idle: Bool?) {
        table.withLock { table in
            let key = UInt(bitPattern: connection)
            guard let entry = table.entries[key] else { return }
            table.entries[key]?.deadline = deadline
            switch idle {
            case true? where entry.idleSince == 0: becomeIdle(key, in: &table)
            case false? where entry.idleSince != 0:
                table.entries[key]?.idleSince = 0
                table.idleCount -= 1
            default: break
            }
        }
    }

    private func becomeIdle(_ key: UInt, in table: inout Table) {
        let since = table.tick()
        table.entries[key]?.idleSince = since
        table.idleCount += 1
        table.idle.append((key, since))
        // Records of connections no longer idle since then are dropped once they are most of
        // the queue (amortized: the queue is then rebuilt from the live ones, in order).
        if table.idle.count - table.idleStart > 2 * table.idleCount + 1024 {
            let entries = table.entries
            table.idle = table.idle[table.idleStart...].filter { entries[$0.key]?.idleSince == $0.since }
            table.idleStart = 0
        }
    }

    /// Shuts down the connections idle the longest while more than `idleLimit` are idle.
    private func shedOldest(in table: inout Table) {
        guard idleLimit > 0 else { return }
        while table.idleCount > idleLimit, table.idleStart < table.idle.count {
            let (key, since) = table.idle[table.idleStart]
            table.idleStart += 1
            guard let entry = table.entries[key], entry.idleSince == since else { continue }
            shed.wrappingAdd(1, ordering: .relaxed)
            _ = Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
            table.entries[key]?.idleSince = 0
            table.entries[key]?.deadline = 0
            table.idleCount -= 1
        }
    }

    /// Ends the thread (waits for it).
    func stop() {
        stopped.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(10_000) }
    }

    private func watch() {
        while !stopped.load(ordering: .acquiring) {
            usleep(250_000)
            let now = Self.now()
            table.withLock { table in
                for (key, entry) in table.entries where entry.deadline != 0 && entry.deadline <= now {
                    // Counted first: whoever sees the connection closed sees it counted.
                    shutDown.wrappingAdd(1, ordering: .relaxed)
                    _ = Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
                    table.entries[key]?.deadline = 0
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }
}
