import Testing

@testable import Core

/// Statement keys hash a sample of the SQL but compare all of its bytes: statements that differ
/// only in the middle, in length, or in bytes that read as the same text are different keys;
/// the same SQL built two ways is one.
struct StatementKeyTests {
    static let insert = "INSERT INTO events (user_id, event_id, type) VALUES (?, ?, ?)"

    @Test(arguments: [
        (insert, insert.replacing("type", with: "kind"), false),
        (insert, insert.replacing("event_id", with: "eventid_"), false),
        (insert, insert + " ", false),
        ("SELECT 1", "SELECT 2", false),
        ("", " ", false),
        ("SELECT 'é'", "SELECT 'e\u{301}'", false),  // equal as Strings, other bytes for the database
        (insert, String(insert.reversed().reversed()), true),
        (insert, ["INSERT INTO events", " (user_id, event_id, type) VALUES (?, ?, ?)"].joined(), true),
    ])
    func keysAreEqualExactlyWhenTheSQLIs(_ a: String, _ b: String, _ equal: Bool) {
        #expect((StatementKey(a) == StatementKey(b)) == equal)
        if equal { #expect(StatementKey(a).hashValue == StatementKey(b).hashValue) }
        var statements: [StatementKey: Int] = [StatementKey(a): 1]
        statements[StatementKey(b), default: 0] += 10
        #expect(statements.count == (equal ? 1 : 2))
    }
}
