import Foundation
import Store
import StoreBackends

/// A PostgreSQL standby that views may read from (`journey serve --read-url`), as one worker
/// sees it: its own connection, and how far the standby has replayed the primary's WAL.
///
/// A view may read from the standby only once the standby has replayed its *floor*: the
/// primary's WAL position when this worker adopted the revision it serves (so everything the
/// primary held when that revision was activated is there), and, for the view's user and dog,
/// the position after this service last wrote for them (their own writes show in their next
/// view). Otherwise, or when the standby cannot be reached, the primary answers.
///
/// Not `Sendable`: it belongs to the worker's request thread.
final class ReadReplica {
    /// The standby's URL (`--read-url`).
    let url: String
    private let schema: Schema
    private var connection: (any StoreConnection)?
    /// The standby's replay position when last read: it only grows while the connection lasts.
    private var replayed: UInt64 = 0
    /// While the standby failed lately: when to try it again.
    private var retryAt: ContinuousClock.Instant?
    /// The standby's external version, read at most every 50 ms (as the primary's).
    var externalVersionRead: (Int64, ContinuousClock.Instant)?
    private let log: (String) -> Void
    private var loggedDown = false

    /// How long a standby that failed is left alone before it is tried again.
    static let retryDelay: Duration = .seconds(1)

    init(url: String, schema: Schema, log: @escaping (String) -> Void) {
        self.url = url
        self.schema = schema
        self.log = log
    }

    /// The standby when it has replayed `floor` (a WAL position), else nil (read from the
    /// primary). Reads the standby's replay position only when the last one read is below
    /// `floor`.
    func store(replayedPast floor: UInt64) -> (any StoreConnection)? {
        if let retryAt, ContinuousClock.now < retryAt { return nil }
        do {
            let standby = try connected()
            if replayed < floor {
                replayed = max(replayed, try Self.replayPosition(of: standby))
            }
            retryAt = nil
            if loggedDown {
                loggedDown = false
                log("the standby \(StoreLocation.withoutPassword(url)) answers again; views read from it")
            }
            return replayed >= floor ? standby : nil
        } catch {
            failed(error)
            return nil
        }
    }

    /// Whether the standby failed lately (and is left alone for now).
    var isDown: Bool { retryAt.map { ContinuousClock.now < $0 } ?? false }

    /// Forgets the replay position read (the connection may have been opened again, to
    /// another server of the URL): the next view reads it anew.
    func forgetPosition() {
        replayed = 0
        externalVersionRead = nil
    }

    /// Leaves the standby alone for ``retryDelay`` after `error` (the next try reconnects).
    func failed(_ error: any Error) {
        connection = nil
        replayed = 0
        externalVersionRead = nil
        retryAt = .now + Self.retryDelay
        if !loggedDown {
            loggedDown = true
            log(
                "the standby \(StoreLocation.withoutPassword(url)) failed (\(error)); views read from the primary until it answers"
            )
        }
    }

    private func connected() throws -> any StoreConnection {
        if let connection { return connection }
        let opened = try StoreLocation(url).open(schema: schema, migrate: false)
        let recovering = try opened.first("SELECT pg_is_in_recovery()::int", []) { $0.integer(0) == 1 } ?? false
        guard recovering else { throw NotAStandby() }
        connection = opened
        return opened
    }

    /// `pg_last_wal_replay_lsn()` as a number.
    static func replayPosition(of standby: any StoreConnection) throws -> UInt64 {
        UInt64(
            max(
                try standby.first("SELECT (pg_last_wal_replay_lsn() - '0/0')::bigint", []) { $0.integer(0) } ?? 0, 0))
    }

    /// The primary's WAL position now (`pg_current_wal_lsn()`): past every commit it
    /// acknowledged so far.
    static func writePosition(of primary: any StoreConnection) throws -> UInt64 {
        UInt64(max(try primary.first("SELECT (pg_current_wal_lsn() - '0/0')::bigint", []) { $0.integer(0) } ?? 0, 0))
    }

    struct NotAStandby: Error, CustomStringConvertible {
        var description: String { "it is not in recovery (pg_is_in_recovery() is false): not a standby" }
    }
}
