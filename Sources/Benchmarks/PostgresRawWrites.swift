import Foundation
import Postgres

/// The physical limit of the PostgreSQL store for `journey ingest`, on the same server in the
/// same run: the rows the engine wrote to `events` written again, with nothing else, into a
/// table like it (its indexes too), in transactions of 500 rows as the ingest's batches: once
/// by COPY, once by INSERTs of 100 rows a statement.
struct PostgresRawWrites {
    /// How long each took, in seconds, and how many rows.
    var copySeconds = 0.0
    var insertSeconds = 0.0
    var rows = 0

    static let batch = 500
    static let rowsPerInsert = 100

    /// Reads the events of the store at `url` and writes them again both ways.
    init(url: String) throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute("SET client_min_messages = warning")
        let columns = [
            "id", "user_id", "event_id", "type", "dog_id", "occurred_at", "occurred_at_text", "received_at", "payload",
            "outcome", "rule_revision", "provenance",
        ]
        var values: [[PostgresValue]] = []
        try connection.query("SELECT \(columns.joined(separator: ", ")) FROM events ORDER BY id") { row in
            values.append((0..<Int32(columns.count)).map { row.text($0).map(PostgresValue.text) ?? .null })
        }
        rows = values.count
        for table in ["raw_copy", "raw_insert"] {
            try connection.execute(
                "DROP TABLE IF EXISTS \(table); CREATE TABLE \(table) (LIKE events INCLUDING DEFAULTS INCLUDING INDEXES)"
            )
        }
        var start = Date()
        for chunk in values.chunked(Self.batch) {
            try connection.transaction {
                for row in chunk { try connection.copyDeferred(into: "raw_copy", columns: columns, row) }
            }
        }
        copySeconds = Date().timeIntervalSince(start)
        start = Date()
        for chunk in values.chunked(Self.batch) {
            try connection.transaction {
                for statement in Array(chunk).chunked(Self.rowsPerInsert) {
                    let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
                    try connection.run(
                        "INSERT INTO raw_insert (\(columns.joined(separator: ", "))) VALUES "
                            + Array(repeating: row, count: statement.count).joined(separator: ", "),
                        statement.flatMap { $0 })
                }
            }
        }
        insertSeconds = Date().timeIntervalSince(start)
        try connection.execute("DROP TABLE raw_copy; DROP TABLE raw_insert")
    }
}

extension Array {
    fileprivate func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
