import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SQLite

/// The write-ahead log stays bounded while another connection keeps reading, as the service's
/// other worker process does between its own writes.
@Suite struct WriteAheadLogTests {
    /// Two connections writing by turns (the service's two worker processes): each began its
    /// transaction, and took its snapshot, while the other's commit was being checkpointed, so
    /// SQLite's own checkpoints never started the log again and it grew by every page written
    /// (450 MB in 8 seconds of `POST /v1/events`). Past ``Connection/walRestartPages`` a commit
    /// now waits for the other to leave the log, and the next writer starts it again.
    @Test func theLogStartsAgainWhileTwoConnectionsWriteByTurns() throws {
        let file = TemporaryDatabaseFile()
        try Connection(path: file.path).execute("CREATE TABLE pages (body BLOB)")
        let writers = (0..<2).map { _ in Writer() }
        for writer in writers { Thread { writer.run(file.path) }.start() }
        for writer in writers { try waitUntil("a writer's end") { writer.ended.load(ordering: .acquiring) } }
        let frame = 4096 + 24
        let largest = writers.map { $0.largestLog.load(ordering: .relaxed) }.max() ?? 0
        let bound = (Int(Connection.walRestartPages) + 2 * Writer.pagesPerTransaction + 64) * frame
        let failures = writers.compactMap { $0.failure.withLock { $0 } }
        #expect(failures.isEmpty, "\(failures)")
        #expect(largest <= bound, "the log reached \(largest / frame) pages (bound \(bound / frame))")
    }

    /// A connection on a thread of its own that writes 20 transactions of 250 pages (together
    /// with the other, two and a half times the bound) and notes the log's size after each.
    final class Writer: Sendable {
        static let pagesPerTransaction = 250
        let largestLog = Atomic<Int>(0)
        let ended = Atomic<Bool>(false)
        let failure = Mutex<String?>(nil)

        func run(_ path: String) {
            defer { ended.store(true, ordering: .releasing) }
            do {
                let connection = try Connection(path: path)
                let body = SQLiteValue.blob([UInt8](repeating: 7, count: 4000))
                for _ in 0..<20 {
                    try connection.transaction {
                        for _ in 0..<Self.pagesPerTransaction {
                            try connection.run("INSERT INTO pages VALUES (?)", [body])
                        }
                    }
                    let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
                    largestLog.store(max(largestLog.load(ordering: .relaxed), size), ordering: .relaxed)
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
    }

    /// A reader that stays in the log (a long export, say) makes a commit wait for it at most
    /// ``Connection/Options/walRestartWaitMilliseconds``, and only once every 1,000 pages, not
    /// at every commit: meanwhile every writer waits.
    @Test func aLongReaderIsWaitedForOnceEveryThousandPages() throws {
        let file = TemporaryDatabaseFile()
        let writer = try Connection(path: file.path, options: .init(walRestartWaitMilliseconds: 20))
        try writer.execute("CREATE TABLE pages (body BLOB)")
        try writer.run("INSERT INTO pages VALUES (x'00')")
        let reader = try Connection(path: file.path)
        try reader.execute("BEGIN")
        #expect(try reader.scalar("SELECT count(*) FROM pages") == 1)
        let body = SQLiteValue.blob([UInt8](repeating: 7, count: 4000))
        for _ in 0..<40 {
            try writer.transaction {
                for _ in 0..<250 { try writer.run("INSERT INTO pages VALUES (?)", [body]) }
            }
        }
        // 10,000 pages: tried at 4,000, 5,000, … 10,000.
        #expect((6...8).contains(writer.walRestartAttempts), "\(writer.walRestartAttempts) waits")
        #expect(try reader.scalar("SELECT count(*) FROM pages") == 1, "the reader's snapshot held")
        try reader.execute("COMMIT")
    }
}
