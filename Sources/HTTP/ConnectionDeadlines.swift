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
/// `@unchecked Sendable`: the table is behind a mutex; the thread stops in ``stop()``.
final class ConnectionDeadlines: @unchecked Sendable {
    let header: Duration
    let body: Duration

    private struct Entry {
        var socket: Int32
        /// Nanoseconds on the monotonic clock; 0: none.
        var deadline: UInt64
    }

    /// By connection (its address). An entry is removed when libmicrohttpd reports the
    /// connection closed, which it does before it closes the socket, so a socket shut down
    /// here under the lock is always still the connection's.
    private let entries = Mutex<[UInt: Entry]>([:])
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    /// Connections shut down for passing a deadline.
    let shutDown = Atomic<Int>(0)

    /// Nil when both deadlines are off (zero).
    init?(header: Duration, body: Duration) {
        guard header > .zero || body > .zero else { return nil }
        self.header = header
        self.body = body
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

    /// A connection opened: its first request's headers are due.
    func opened(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        let due = deadline(after: header)
        entries.withLock { $0[UInt(bitPattern: connection)] = Entry(socket: socket, deadline: due) }
    }

    /// A request's headers are read: its body is due.
    func headersRead(_ connection: OpaquePointer) { set(connection, deadline(after: body)) }

    /// A request is read whole: none while it is answered.
    func requestRead(_ connection: OpaquePointer) { set(connection, 0) }

    /// A response is sent: the next request's headers are due.
    func answered(_ connection: OpaquePointer) { set(connection, deadline(after: header)) }

    /// The connection is closed.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
    }

    private func set(_ connection: OpaquePointer, _ deadline: UInt64) {
        entries.withLock { entries in
            let key = UInt(bitPattern: connection)
            if entries[key] != nil { entries[key]?.deadline = deadline }
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
            entries.withLock { entries in
                for (key, entry) in entries where entry.deadline != 0 && entry.deadline <= now {
                    // Counted first: whoever sees the connection closed sees it counted.
                    shutDown.wrappingAdd(1, ordering: .relaxed)
                    _ = Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
                    entries[key]?.deadline = 0
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }
}
