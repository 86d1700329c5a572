import Foundation
import TestSupport
import Testing

@testable import Postgres

/// Rows queued in a transaction go to the server once a batch's worth is queued, without
/// waiting for answers: the server inserts them while the writer goes on. Their results are
/// read at the next statement that waits (a read, a savepoint's end, the commit), where their
/// first error is thrown as if they had been sent with it; a connection lost meanwhile loses
/// the transaction and nothing else.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"] != nil, "no PostgreSQL server"))
struct PostgresSendAheadTests {
    static var url: String { ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"] ?? "" }

    /// A table of its own for one test (the tests share the server), dropped at the end.
    final class Probe {
        let connection: PostgresConnection
        let table = "ahead_\(UInt32.random(in: 0...UInt32.max))"

        init() throws {
            connection = try PostgresConnection(url: PostgresSendAheadTests.url)
            try connection.execute("CREATE TABLE \(table) (id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
        }

        deinit {
            if let cleaner = try? PostgresConnection(url: PostgresSendAheadTests.url) {
                try? cleaner.execute("DROP TABLE IF EXISTS \(table)")
            }
        }

        /// Queues a batch's worth of rows (ids from `first`), the last one's id `last` if given.
        func queueBatch(from first: Int = 0, last: Int? = nil) throws {
            let ids = Array(first..<(first + PipelinedRows.aheadRows))
            for id in ids {
                let value = id == ids.last ? last ?? id : id
                try connection.insertDeferred(
                    into: table, columns: ["id", "note"], [.integer(Int64(value)), .text("n")])
            }
        }

        func count(on connection: PostgresConnection? = nil) throws -> Int64 {
            var count: Int64 = -1
            try (connection ?? self.connection).query("SELECT count(*) FROM \(table)") { count = $0.integer(0) }
            return count
        }

        func backendPID() throws -> Int64 {
            var pid: Int64 = 0
            try connection.query("SELECT pg_backend_pid()") { pid = $0.integer(0) }
            return pid
        }
    }

    @Test func theServerRunsTheRowsBeforeAnythingWaitsForThem() throws {
        let probe = try Probe()
        let observer = try PostgresConnection(url: Self.url)
        try probe.connection.transaction {
            let pid = try probe.backendPID()
            try probe.queueBatch()
            #expect(!probe.connection.ahead.isEmpty, "the rows were sent without waiting for their answers")
            // The server reports each statement as it starts it; nothing on this side waits.
            _ = try waitFor("the server to start inserting the rows sent ahead") { () -> String? in
                var query = ""
                try observer.query("SELECT query FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]) {
                    query = $0.text(0) ?? ""
                }
                return query.hasPrefix("INSERT INTO \(probe.table)") ? query : nil
            }
        }
        #expect(try probe.count(on: observer) == Int64(PipelinedRows.aheadRows))
    }

    @Test func aRowSentAheadThatFailsIsThrownAtTheNextReadAndUndoesItsTransaction() throws {
        let probe = try Probe()
        #expect {
            try probe.connection.transaction {
                try probe.queueBatch(last: 0)  // a second row with id 0
                try probe.connection.query("SELECT 1") { _ in }
                Issue.record("the read after the failed rows answered")
            }
        } throws: { error in
            let error = error as? PostgresError
            return error?.sqlState == "23505" && error?.sql?.hasPrefix("INSERT INTO \(probe.table)") == true
        }
        #expect(probe.connection.ahead.isEmpty)
        #expect(try probe.count() == 0, "nothing of the failed transaction was kept")
        try probe.connection.transaction { try probe.queueBatch() }
        #expect(try probe.count() == Int64(PipelinedRows.aheadRows), "the connection works on")
    }

    @Test func aRowSentAheadThatFailsInASavepointUndoesOnlyIt() throws {
        let probe = try Probe()
        var unitFailed = false
        try probe.connection.transaction {
            try probe.connection.savepoint("kept") { try probe.queueBatch() }
            do {
                try probe.connection.savepoint("gone") {
                    try probe.queueBatch(from: 1000, last: 0)  // 0 is taken by the unit before
                    #expect(!probe.connection.ahead.isEmpty)
                }
            } catch {
                unitFailed = (error as? PostgresError)?.sqlState == "23505"
            }
            try probe.connection.savepoint("after") { try probe.queueBatch(from: 2000) }
        }
        #expect(unitFailed)
        #expect(try probe.count() == Int64(2 * PipelinedRows.aheadRows))
    }

    @Test func aStatementNewToTheSessionAfterRowsSentAheadSeesThem() throws {
        let probe = try Probe()
        var seen: Int64 = -1
        try probe.connection.transaction {
            try probe.queueBatch()
            #expect(!probe.connection.ahead.isEmpty)
            // Prepared by a round trip of its own: what was sent ahead is read first.
            let fresh = "SELECT count(*) + \(Int.random(in: 0...1_000_000)) * 0 FROM \(probe.table)"
            try probe.connection.query(fresh) { seen = $0.integer(0) }
        }
        #expect(seen == Int64(PipelinedRows.aheadRows))
    }

    @Test func aConnectionLostWithRowsSentAheadLosesOnlyItsTransaction() throws {
        let probe = try Probe()
        let observer = try PostgresConnection(url: Self.url)
        #expect(throws: PostgresError.self) {
            try probe.connection.transaction {
                let pid = try probe.backendPID()
                try probe.queueBatch()
                try observer.run("SELECT pg_terminate_backend(?)", [.integer(pid)])
                _ = try waitFor("the backend to end") { () -> Bool? in
                    var alive = true
                    try observer.query("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]) {
                        alive = $0.integer(0) > 0
                    }
                    return alive ? nil : true
                }
                try probe.connection.query("SELECT 1") { _ in }
            }
        }
        try probe.connection.transaction { try probe.queueBatch(from: 5000) }
        #expect(probe.connection.reconnections == 1)
        #expect(try probe.count(on: observer) == Int64(PipelinedRows.aheadRows), "only the later batch is kept")
    }
}
