import Foundation
import Testing

@testable import Postgres

/// The shared SQL's placeholders become PostgreSQL's, outside literals, quoted names and comments.
@Suite struct PlaceholderTests {
    static let cases: [(String, String, Int)] = [
        ("SELECT ?", "SELECT $1", 1),
        ("INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES ($1, $2, $3)", 3),
        ("WHERE a = ?1 OR b = ?1 AND c = ?2", "WHERE a = $1 OR b = $1 AND c = $2", 2),
        ("SELECT 'why?', ?", "SELECT 'why?', $1", 1),
        ("SELECT 'it''s ?' || ?", "SELECT 'it''s ?' || $1", 1),
        ("SELECT \"odd?name\" FROM t WHERE x = ?", "SELECT \"odd?name\" FROM t WHERE x = $1", 1),
        ("SELECT 1 -- is it?\nWHERE x = ?", "SELECT 1 -- is it?\nWHERE x = $1", 1),
        ("SELECT 1", "SELECT 1", 0),
    ]

    @Test(arguments: cases)
    func translates(shared: String, postgres: String, count: Int) {
        let (sql, parameters) = Placeholders.translate(shared)
        #expect(sql == postgres)
        #expect(parameters == count)
    }
}

/// A live connection, when `JOURNEY_TEST_POSTGRES_URL` names a server (`scripts/test` starts
/// one): errors carry the server's SQLSTATE and the statement; a server that is not there is
/// a connection error without one.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"] != nil, "no PostgreSQL server"))
struct PostgresConnectionTests {
    static var url: String { ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"] ?? "" }

    @Test func errorsCarryTheirSQLState() throws {
        let connection = try PostgresConnection(url: Self.url)
        try connection.execute("CREATE TEMP TABLE t (id INTEGER PRIMARY KEY)")
        try connection.run("INSERT INTO t VALUES (?)", [.integer(1)])
        do {
            try connection.run("INSERT INTO t VALUES (?)", [.integer(1)])
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.sqlState == "23505", "\(error)")
            #expect(error.sql?.contains("INSERT INTO t") == true)
            #expect(!error.isConnectionLost)
        }
        #expect(throws: PostgresError.self) { try connection.execute("SELEC 1") }
        #expect(connection.isAlive, "an error leaves the connection usable")
        var seen: [Int64] = []
        try connection.query("SELECT id FROM t") { seen.append($0.integer(0)) }
        #expect(seen == [1])
    }

    @Test func aServerThatIsNotThereIsAConnectionError() {
        #expect {
            _ = try PostgresConnection(url: "postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=2")
        } throws: { error in
            let error = error as? PostgresError
            return error?.sqlState == nil && error?.isConnectionLost == true
                && error?.message.hasPrefix("cannot connect") == true
        }
    }

    @Test func wrongValueCountsAreRefusedBeforeTheServer() throws {
        let connection = try PostgresConnection(url: Self.url)
        #expect {
            try connection.run("SELECT ?, ?", [.integer(1)])
        } throws: { error in
            "\(error)".contains("1 values for 2 placeholders")
        }
    }
}
