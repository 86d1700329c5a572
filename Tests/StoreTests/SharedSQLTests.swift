import Store
import TestSupport
import Testing

/// The shared SQL the features' stores speak (``SQLWriting``), on the embedded store: values
/// round-trip by type, `run` counts the rows it changed, `first` stops at the first row, and a
/// statement that fails names itself.
@Suite struct SharedSQLTests {
    static let values: [(SQLValue, String)] = [
        (.null, "null"), (.integer(-7), "integer"), (.real(2.5), "real"), (.text("ш\u{0}x"), "text"),
        (.optional(nil as String?), "null"), (.optional(4.0 as Double?), "real"),
        (.optional(9 as Int64?), "integer"), (.boolean(true), "integer"),
    ]

    @Test(arguments: values)
    func valuesRoundTripByType(value: SQLValue, type: String) throws {
        let database = TestDatabase(schema: .core)
        let read = try database.store.first("SELECT ?1, typeof(?1)", [value]) { row -> (SQLValue, String?) in
            let stored: SQLValue =
                switch row.text(1) {
                case "integer": .integer(row.integer(0))
                case "real": .real(row.real(0))
                case "text": .text(row.text(0) ?? "")
                default: row.isNull(0) ? .null : .text("?")
                }
            return (stored, row.text(1))
        }
        #expect(read?.0 == value)
        #expect(read?.1 == type)
    }

    @Test func runCountsChangedRowsAndFirstStopsAtOne() throws {
        let store = TestDatabase(schema: .core).store
        try store.ensureUser("u1", firstSeenAt: 1)
        try store.ensureUser("u2", firstSeenAt: 2)
        #expect(try store.run("UPDATE users SET timezone = ? WHERE first_seen_at > ?", [.text("UTC"), .real(0)]) == 2)
        #expect(try store.run("UPDATE users SET timezone = ? WHERE user_id = ?", [.text("UTC"), .text("none")]) == 0)
        #expect(try store.first("SELECT user_id FROM users ORDER BY user_id", []) { $0.text(0) } == "u1")
        #expect(try store.first("SELECT user_id FROM users WHERE 0", []) { $0.text(0) } == nil)
        #expect(try store.rows("SELECT user_id FROM users ORDER BY user_id DESC") { $0.text(0) } == ["u2", "u1"])
    }

    @Test func aFailingStatementNamesItself() throws {
        let store = TestDatabase(schema: .core).store
        let error = #expect(throws: (any Error).self) { try store.run("INSERT INTO nowhere VALUES (?)", [.null]) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("nowhere"))
    }
}
