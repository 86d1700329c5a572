import Core
import Testing

/// Which SQL is a one-row insert, with the columns it binds and what it does on a conflict: the
/// PostgreSQL connection merges plain ones into multi-row inserts, and a transaction's kept
/// reads are forgotten by the rows such inserts may write.
@Suite struct InsertStatementTests {
    typealias Conflict = InsertStatement.OnConflict

    static let cases: [(sql: String, table: String?, columns: [String], onConflict: Conflict?)] = [
        ("INSERT INTO events (id, user_id) VALUES (?, ?)", "events", ["id", "user_id"], nil),
        ("  INSERT INTO t (a,b,  c)\n    VALUES (?,?, ?)\n", "t", ["a", "b", "c"], nil),
        ("INSERT INTO t(a)VALUES(?)", "t", ["a"], nil),
        (
            "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO NOTHING", "t", ["a", "b"],
            .doNothing(target: ["a"])
        ),
        (
            "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a, b)\n DO UPDATE SET b = excluded.b", "t", ["a", "b"],
            .doUpdate(target: ["a", "b"])
        ),
        // An update that binds a value of its own: its placeholders are not the row's.
        ("INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET b = ?", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?) ON CONFLICT DO NOTHING", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO NOTHING RETURNING a", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?) RETURNING a", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?), (?)", nil, [], nil),
        ("INSERT INTO t (a, b) VALUES (?)", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?, ?)", nil, [], nil),
        ("INSERT INTO t (a) VALUES ('x')", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?1)", nil, [], nil),
        ("INSERT INTO t (a) SELECT ?", nil, [], nil),
        ("INSERT INTO s.t (a) VALUES (?)", nil, [], nil),
        ("INSERT INTO t (\"a\") VALUES (?)", nil, [], nil),
        ("INSERT INTO t (a b) VALUES (?)", nil, [], nil),
        ("INSERT INTO t () VALUES ()", nil, [], nil),
        ("INSERT INTOt (a) VALUES (?)", nil, [], nil),
        ("insert into t (a) values (?)", nil, [], nil),
        ("INSERT INTO t (a) VALUES (?); DELETE FROM t", nil, [], nil),
        ("UPDATE t SET a = ?", nil, [], nil),
    ]

    @Test(arguments: cases)
    func reads(sql: String, table: String?, columns: [String], onConflict: Conflict?) {
        let insert = InsertStatement(sql)
        #expect(insert?.table == table)
        #expect(insert?.columns ?? [] == columns)
        #expect(insert?.onConflict == onConflict)
        let plain = onConflict == nil ? insert : nil
        #expect(InsertStatement.plain(sql) == plain, "only an insert with no ON CONFLICT is plain")
    }
}
