import Core
/// Rows for one table sent as one `INSERT … SELECT … FROM json_populate_recordset(…)` of a
/// single parameter, the rows as a JSON array of objects (each value a JSON string of its
/// text, or null): the server reads each value with its column's type, as it reads a
/// statement's parameters. Unlike a COPY, it rides in a pipeline with other statements, so the
/// rows cost no round trip of their own.
struct PipelinedRows {
    let table: String
    let columns: [String]
    /// The JSON array being built (`[` and the rows so far, without the closing `]`).
    private(set) var json: [UInt8] = [0x5B]
    private(set) var count = 0

    /// Rows are sent once this much is queued, so that a long transaction keeps little.
    static let flushBytes = 4 << 20

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
    }

    /// The statement: every column named by the table's row type (`NULL::table`).
    var sql: String {
        let list = columns.joined(separator: ", ")
        return
            "INSERT INTO \(table) (\(list)) SELECT \(list) FROM json_populate_recordset(NULL::\(table), CAST(? AS json))"
    }

    /// The statement's one value: the rows.
    var value: PostgresValue { .text(String(decoding: json + [0x5D], as: UTF8.self)) }

    mutating func append(_ values: [PostgresValue]) {
        if count > 0 { json.append(0x2C) }
        json.append(0x7B)
        for (index, (column, value)) in zip(columns, values).enumerated() {
            if index > 0 { json.append(0x2C) }
            JSON.writeQuoted(column, to: &json)
            json.append(0x3A)
            if let text = value.text {
                JSON.writeQuoted(text, to: &json)
            } else {
                json.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])  // null
            }
        }
        json.append(0x7D)
        count += 1
    }
}
