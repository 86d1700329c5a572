import CSQLite
import Foundation
import TestSupport
import Testing

@testable import SQLite

/// The wrapper on real database files.
@Suite struct ConnectionTests {
    @Test func opensInWALModeWithForeignKeys() throws {
        let file = TemporaryDatabaseFile()
        let db = try Connection(path: file.path)
        #expect(try db.prepare("PRAGMA journal_mode").first { $0.text(0) } == "wal")
        #expect(try db.scalar("PRAGMA foreign_keys") == 1)
    }

    static let caches: [(String, Int32, Bool)] = [
        ("SQLite's default, 2 MiB", 2000, true),
        ("the default of Connection.Options", Connection.Options().cacheKibibytes, false),
    ]

    /// A transaction that changes 8 MiB of pages, scattered over an index as events' rows are
    /// over a store's dogs, keeps them in memory until its commit with the default cache; with
    /// SQLite's own (the connection's before), pages were written to the log mid-transaction.
    @Test(arguments: caches)
    func aTransactionOfAFewHundredEventsDoesNotSpillItsPages(_ name: String, _ kibibytes: Int32, _ spills: Bool)
        throws
    {
        let file = TemporaryDatabaseFile()
        let db = try Connection(path: file.path, options: .init(cacheKibibytes: kibibytes))
        try db.execute("CREATE TABLE rows (key INTEGER PRIMARY KEY, body BLOB)")
        let body = SQLiteValue.blob([UInt8](repeating: 1, count: 4000))
        try db.transaction {
            for key in 0..<2000 {
                try db.run("INSERT INTO rows VALUES (?, ?)", [.integer(Int64(key * 7919 % 2000)), body])
            }
        }
        #expect((db.cacheSpills > 0) == spills, "\(name): \(db.cacheSpills) pages spilled")
    }

    /// SQLite's memory statistics are off (each allocation took a global mutex to count
    /// itself): with them on, `sqlite3_memory_used` counts what the connection holds.
    @Test func memoryStatisticsAreOff() throws {
        let file = TemporaryDatabaseFile()
        let db = try Connection(path: file.path)
        try db.execute("CREATE TABLE t (x TEXT)")
        for i in 0..<100 { try db.run("INSERT INTO t VALUES (?)", [.text(String(repeating: "x", count: i))]) }
        #expect(sqlite3_memory_used() == 0)
    }

    /// A LIKE with a bound pattern keeps its compiled plan when the pattern changes (SQLite
    /// compiled it again on every new pattern, ~60 k instructions a run), and still matches as
    /// LIKE does: case-insensitively for ASCII, with escapes.
    @Test func aLikeWithABoundPatternIsNotCompiledAgain() throws {
        let file = TemporaryDatabaseFile()
        let db = try Connection(path: file.path)
        try db.execute("CREATE TABLE t (user TEXT, properties TEXT)")
        try db.execute("CREATE INDEX t_user ON t (user)")
        for (user, properties) in [
            ("u1", #"{"dog_id":"q-1"}"#), ("u1", #"{"dog_id":"Q_2"}"#), ("u2", #"{"dog_id":"q-1"}"#),
        ] {
            try db.run("INSERT INTO t VALUES (?, ?)", [.text(user), .text(properties)])
        }
        let sql = #"SELECT count(*) FROM t WHERE user = ? AND properties LIKE ? ESCAPE '\'"#
        let cases: [(String, String, Int64)] = [
            ("u1", #"%"dog_id":"q-1"%"#, 1), ("u1", #"%"dog_id":"q\_2"%"#, 1), ("u1", #"%"dog_id":"qx2"%"#, 0),
            ("u2", #"%"dog_id":"Q-1"%"#, 1), ("u1", "%", 2),
        ]
        for (user, pattern, expected) in cases {
            #expect(
                try db.prepare(sql).first([.text(user), .text(pattern)]) { $0.integer(0) } == expected, "\(pattern)")
        }
        #expect(try db.prepare(sql).reprepareCount == 0)
    }

    /// A writer waits while another connection (another worker process) holds the write lock,
    /// and gives up with SQLITE_BUSY once its busy timeout has passed.
    @Test func writersWaitForTheLockUpToTheirTimeout() throws {
        let file = TemporaryDatabaseFile()
        let holder = try Connection(path: file.path)
        try holder.execute("CREATE TABLE t (x INTEGER)")
        let path = file.path
        let impatient = try Connection(path: path, options: .init(busyTimeoutMilliseconds: 50))
        try holder.execute("BEGIN IMMEDIATE")
        try holder.execute("INSERT INTO t VALUES (1)")
        #expect(throws: SQLiteError.self) { try impatient.execute("BEGIN IMMEDIATE") }
        // A patient writer on another thread waits until the holder commits.
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedText()
        let trying = DispatchSemaphore(value: 0)
        Thread {
            do {
                let waited = try Connection(path: path, options: .init(busyTimeoutMilliseconds: 60_000))
                trying.signal()
                try waited.execute("BEGIN IMMEDIATE")
                try waited.execute("INSERT INTO t VALUES (2)")
                try waited.execute("COMMIT")
                outcome.set("committed")
            } catch {
                outcome.set("\(error)")
            }
            done.signal()
        }.start()
        trying.wait()
        // The holder keeps its lock a moment while the other tries to take it (nothing tells
        // from outside that a connection is waiting in SQLite's busy handler).
        letTimePass(.milliseconds(200), for: "the patient writer to be waiting for the lock")
        try holder.execute("COMMIT")
        done.wait()
        #expect(outcome.text == "committed")
        #expect(try holder.scalar("SELECT count(*) FROM t") == 2)
    }

    @Test func bindsAndReadsEveryType() throws {
        let file = TemporaryDatabaseFile()
        let db = try Connection(path: file.path)
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.run(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            [.integer(Int64.max), .real(0.1), .text("Grüße 🐶\0x"), .blob([0, 1, 255]), .null])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [0, 0, "", .blob([]), nil])
        var rows: [String] = []
        try db.prepare("SELECT i, r, s, b, n FROM t ORDER BY rowid").query { row in
            rows.append("\(row.integer(0))|\(row.real(1))|\(row.text(2)!)|\(row.blob(3)!)|\(row.isNull(4))")
        }
        #expect(rows == ["\(Int64.max)|0.1|Grüße 🐶\0x|[0, 1, 255]|true", "0|0.0||[]|true"])
    }

    @Test func statementsAreCached() throws {
        let db = try Connection(path: ":memory:")
        #expect(try db.prepare("SELECT 1") === db.prepare("SELECT 1"))
    }

    @Test func errorsCarryTheSQL() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try db.run("INSERT INTO t (name) VALUES (?)", ["a"])
        do {
            try db.run("INSERT INTO t (name) VALUES (?)", ["a"])
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.isConstraintViolation)
            #expect(error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.sql == "INSERT INTO t (name) VALUES (?)")
            #expect(error.description.contains("UNIQUE constraint failed: t.name"))
        }
        #expect(throws: SQLiteError.self) { try db.prepare("SELEC nonsense") }
    }

    @Test func transactionRollsBackOnError() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == 0)
        #expect(!db.isInTransaction)
    }

    @Test func savepointRollsBackOnlyItsOwnChanges() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            _ = try? db.savepoint {
                try db.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
            try db.savepoint { try db.run("INSERT INTO t VALUES (3)") }
        }
        var values: [Int64] = []
        try db.prepare("SELECT x FROM t ORDER BY x").query { values.append($0.integer(0)) }
        #expect(values == [1, 3])
    }
}
