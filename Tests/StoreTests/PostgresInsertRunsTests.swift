import Foundation
import Postgres
import PostgresStore
import Store
import TestSupport
import Testing

/// Queued rows go as multi-row inserts: a run of the same queued single-row insert is merged
/// into one statement, and rows queued for a table (an ingest's events) go in a few statements
/// of fixed sizes. The rows stored, their order and the identities they take are those of
/// inserting them one at a time; a row that breaks a constraint still fails its transaction.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresInsertRunsTests {
    static let analytics = "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties) VALUES (?, ?, ?, ?)"
    static let user = "INSERT INTO users (user_id, first_seen_at) VALUES (?, ?)"

    /// Runs of one insert (3, 1, 5 and 2 rows) between other statements, as an ingest queues
    /// an event's analytics rows.
    static var statements: [(sql: String, values: [PostgresValue])] {
        var statements: [(sql: String, values: [PostgresValue])] = []
        var row = 0
        for (run, name) in [(3, "a"), (1, "b"), (5, "c"), (2, "d")] {
            for _ in 0..<run {
                row += 1
                let properties = #"{"n":\#(row),"quote":"it's \"x\" \\ ü"}"#
                statements.append(
                    (analytics, [.text("u\(row % 2)"), .text(name), .real(Double(row) / 3), .text(properties)]))
            }
            statements.append((user, [.text("user-\(name)"), .real(Double(row))]))
        }
        return statements
    }

    static func stored(_ store: any StoreConnection) throws -> [String] {
        try store.rows("SELECT id, user_id, name, occurred_at, properties FROM analytics_outbox ORDER BY id", []) {
            "\($0.integer(0)) \($0.text(1) ?? "") \($0.text(2) ?? "") \($0.real(3)) \($0.text(4) ?? "")"
        }
            + store.rows("SELECT user_id, first_seen_at FROM users ORDER BY user_id", []) {
                "\($0.text(0) ?? "") \($0.real(1))"
            }
    }

    @Test func runsOfOneInsertStoreWhatInsertsOneAtATimeStore() throws {
        let queued = try TestStore("postgres", schema: .core)
        let connection = try #require(queued.store as? PostgresStore).database.connection
        try queued.store.transaction {
            for statement in Self.statements { try connection.runDeferred(statement.sql, statement.values) }
        }
        let oneAtATime = try TestStore("postgres", schema: .core)
        let direct = try #require(oneAtATime.store as? PostgresStore).database.connection
        for statement in Self.statements { try direct.run(statement.sql, statement.values) }
        let rows = try Self.stored(queued.store)
        #expect(rows.count == 15)
        #expect(rows == (try Self.stored(oneAtATime.store)))
        // Runs of 3, 1, 5 (4 + 1) and 2 rows.
        #expect(try Self.preparedRowCounts(connection, table: "analytics_outbox") == [1, 2, 3, 4])
    }

    /// The rows of each insert into `table` the session prepared (a merged run is one).
    static func preparedRowCounts(_ connection: PostgresConnection, table: String) throws -> [Int] {
        var counts: [Int] = []
        try connection.query(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE ?", [.text("INSERT INTO \(table) %")]
        ) { counts.append(($0.text(0) ?? "").components(separatedBy: "), (").count) }
        return counts.sorted()
    }

    @Test func aRowOfARunThatBreaksAConstraintFailsItsTransaction() throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        #expect {
            try backend.store.transaction {
                for id in ["a", "b", "a", "c"] { try connection.runDeferred(Self.user, [.text(id), .real(1)]) }
            }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505"
        }
        #expect(try PostgresPipelineTests.count(backend.store) == 0)
    }

    @Test func insertsThatAreNotPlainSingleRowOnesRunOneByOne() throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        try backend.store.transaction {
            for id in ["a", "b", "a", "a", "c"] {
                try connection.runDeferred(Self.user + " ON CONFLICT (user_id) DO NOTHING", [.text(id), .real(1)])
            }
        }
        #expect(try PostgresPipelineTests.count(backend.store) == 3)
    }

    /// Rows queued, and the sizes of the statements that insert them (300 = 4 × 64 + 2 × 16 +
    /// 3 × 4, the 64s sent ahead as they fill up).
    @Test(arguments: [(1, [1]), (3, [3]), (300, [4, 16, 64]), (517, [1, 4, 64])])
    func queuedRowsOfATableAreStoredInOrder(count: Int, statementSizes: [Int]) throws {
        let backend = try TestStore("postgres", schema: .core)
        let connection = try #require(backend.store as? PostgresStore).database.connection
        let rows: [[PostgresValue]] = (0..<count).map { n in
            [.text(String(format: "u%04d", n)), .real(Double(n) + 0.25), n % 3 == 0 ? .null : .text("Zone/\(n)'\"\\")]
        }
        try backend.store.transaction {
            for row in rows {
                try connection.insertDeferred(into: "users", columns: ["user_id", "first_seen_at", "timezone"], row)
            }
        }
        let stored = try backend.store.rows("SELECT user_id, first_seen_at, timezone FROM users ORDER BY user_id", []) {
            [PostgresValue.text($0.text(0) ?? ""), .real($0.real(1)), $0.text(2).map(PostgresValue.text) ?? .null]
        }
        #expect(stored == rows)
        #expect(try Self.preparedRowCounts(connection, table: "users") == statementSizes)
    }
}
