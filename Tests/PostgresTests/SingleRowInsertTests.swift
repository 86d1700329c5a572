import Postgres
import Testing

/// Which SQL is a plain single-row insert, the only kind merged into multi-row ones.
@Suite struct SingleRowInsertTests {
    static let cases: [(sql: String, table: String?, columns: [String])] = [
        ("INSERT INTO events (id, user_id) VALUES (?, ?)", "events", ["id", "user_id"]),
        ("  INSERT INTO t (a,b,  c)\n    VALUES (?,?, ?)\n", "t", ["a", "b", "c"]),
        ("INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO NOTHING", nil, []),
        ("INSERT INTO t (a) VALUES (?) RETURNING a", nil, []),
        ("INSERT INTO t (a) VALUES (?), (?)", nil, []),
        ("INSERT INTO t (a, b) VALUES (?)", nil, []),
        ("INSERT INTO t (a) VALUES ('x')", nil, []),
        ("INSERT INTO t (a) VALUES (?1)", nil, []),
        ("INSERT INTO t (a) SELECT ?", nil, []),
        ("INSERT INTO s.t (a) VALUES (?)", nil, []),
        ("INSERT INTO t (\"a\") VALUES (?)", nil, []),
        ("UPDATE t SET a = ?", nil, []),
    ]

    @Test(arguments: cases)
    func reads(sql: String, table: String?, columns: [String]) {
        let insert = SingleRowInsert(sql)
        #expect(insert?.table == table)
        #expect(insert?.columns ?? [] == columns)
    }
}
