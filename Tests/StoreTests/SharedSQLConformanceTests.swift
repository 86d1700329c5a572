import Foundation
import PostgresStore
import Store
import TestSupport
import Testing

/// The shared SQL the features' stores speak, on every backend: SQLite always, PostgreSQL when
/// `JOURNEY_TEST_POSTGRES_URL` names a server (`scripts/test` starts one). Each case runs in a
/// table of its own (on PostgreSQL, in a schema of its own).
@Suite struct SharedSQLConformanceTests {
    /// A backend with a fresh, empty `scores` table.
    final class Backend: CustomStringConvertible, @unchecked Sendable {
        let name: String
        let database: any SQLWriting
        let transaction: (() throws -> Void) throws -> Void
        private let keep: Any?

        init(_ name: String) throws {
            self.name = name
            switch name {
            case "sqlite":
                let file = TestDatabase(schema: .core)
                database = file.store
                transaction = { body in try file.store.transaction(body) }
                keep = file
            default:
                let url = try #require(Self.postgresURL)
                let postgres = try PostgresDatabase(url: url)
                let schema = "conformance_\(UUID().uuidString.prefix(8).lowercased())"
                try postgres.run("CREATE SCHEMA \(schema)", [])
                try postgres.run("SET search_path TO \(schema)", [])
                database = postgres
                transaction = { body in try postgres.transaction(body) }
                keep = nil
            }
            try database.run(
                "CREATE TABLE scores (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL, note TEXT)", [])
        }

        var description: String { name }

        static let postgresURL = ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"]
        static var names: [String] { ["sqlite"] + (postgresURL == nil ? [] : ["postgres"]) }
    }

    @Test(arguments: Backend.names)
    func valuesRoundTripAndNullsStayNull(backend name: String) throws {
        let backend = try Backend(name)
        let db = backend.database
        try db.run(
            "INSERT INTO scores (id, name, score, note) VALUES (?, ?, ?, ?)",
            [.integer(1), .text("ш\"x' — ok"), .real(2.5), .null])
        let row = try db.first("SELECT id, name, score, note FROM scores WHERE id = ?", [.integer(1)]) {
            ($0.integer(0), $0.text(1), $0.real(2), $0.text(3), $0.isNull(3))
        }
        #expect(row?.0 == 1 && row?.1 == "ш\"x' — ok" && row?.2 == 2.5 && row?.3 == nil && row?.4 == true)
        #expect(try db.first("SELECT score FROM scores WHERE id = ?", [.integer(9)]) { $0.real(0) } == nil)
    }

    /// A fragment escaped by `EventTypeFilter.likePattern` matches, inside `%…%`, exactly the
    /// names that contain it: its `%`, `_` and `\` are themselves, not wildcards.
    @Test(arguments: Backend.names)
    func anEscapedLikePatternMatchesItsTextOnly(backend name: String) throws {
        let db = try Backend(name).database
        let names = ["dog_1", "dogx1", "100%", "1000", #"a\b"#, "ab", "ünï_ok", "ünïxok", #"x\%y"#]
        for (id, text) in names.enumerated() {
            try db.run("INSERT INTO scores (id, name) VALUES (?, ?)", [.integer(Int64(id)), .text(text)])
        }
        for fragment in ["_", "g_1", "%", "0%", #"\"#, #"a\b"#, "ï_", #"\%"#, "plain"] {
            let pattern = "%" + EventTypeFilter.likePattern(fragment) + "%"
            let matched = try db.rows(
                #"SELECT name FROM scores WHERE name LIKE ? ESCAPE '\' ORDER BY id"#, [.text(pattern)]
            ) { $0.text(0) ?? "" }
            #expect(matched == names.filter { $0.contains(fragment) }, "\(fragment) as \(pattern)")
        }
    }

    @Test(arguments: Backend.names)
    func runCountsChangedRowsAndRowsComeInOrder(backend name: String) throws {
        let backend = try Backend(name)
        let db = backend.database
        for (id, who) in [(1, "a"), (2, "b"), (3, "c")] {
            try db.run(
                "INSERT INTO scores (id, name, score) VALUES (?, ?, ?)", [.integer(Int64(id)), .text(who), .real(0)])
        }
        #expect(try db.run("UPDATE scores SET score = ? WHERE id > ?", [.real(1), .integer(1)]) == 2)
        #expect(try db.run("UPDATE scores SET score = ? WHERE name = ?", [.real(1), .text("none")]) == 0)
        #expect(try db.rows("SELECT name FROM scores ORDER BY id DESC") { $0.text(0) } == ["c", "b", "a"])
        // `?N` names a value by position, and may name it twice.
        #expect(
            try db.rows("SELECT name FROM scores WHERE id = ?1 OR id = ?1 + 1 ORDER BY id", [.integer(2)]) {
                $0.text(0)
            } == ["b", "c"])
    }

    @Test(arguments: Backend.names)
    func onConflictDoesNothingOrUpdatesAndReturningAnswers(backend name: String) throws {
        let backend = try Backend(name)
        let db = backend.database
        let insert = "INSERT INTO scores (id, name, score) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING"
        #expect(try db.run(insert, [.integer(1), .text("a"), .real(1)]) == 1)
        #expect(try db.run(insert, [.integer(2), .text("a"), .real(5)]) == 0, "the same name again")
        try db.run(
            """
            INSERT INTO scores (id, name, score) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET score = scores.score + excluded.score
            """, [.integer(3), .text("a"), .real(4)])
        #expect(try db.first("SELECT score FROM scores WHERE name = ?", [.text("a")]) { $0.real(0) } == 5)
        let returned = try db.first(
            "INSERT INTO scores (id, name, score) VALUES (?, ?, ?) RETURNING id", [.integer(7), .text("b"), .real(0)]
        ) { $0.integer(0) }
        #expect(returned == 7)
        // A text literal with a question mark is not a placeholder.
        #expect(try db.first("SELECT 'why?' || name FROM scores WHERE id = ?", [.integer(7)]) { $0.text(0) } == "why?b")
    }

    @Test(arguments: Backend.names)
    func aFailedTransactionKeepsNothingAndAFailedStatementNamesItself(backend name: String) throws {
        let backend = try Backend(name)
        let db = backend.database
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try backend.transaction {
                try db.run("INSERT INTO scores (id, name) VALUES (?, ?)", [.integer(1), .text("a")])
                throw Stop()
            }
        }
        #expect(try db.first("SELECT count(*) FROM scores", []) { $0.integer(0) } == 0)
        try db.run("INSERT INTO scores (id, name) VALUES (?, ?)", [.integer(1), .text("a")])
        #expect {
            try db.run("INSERT INTO scores (id, name) VALUES (?, ?)", [.integer(2), .text("a")])
        } throws: { error in
            "\(error)".contains("INSERT INTO scores") && "\(error)".lowercased().contains("unique")
        }
    }
}
