/// Rows for one table sent as multi-row `INSERT … VALUES (…), (…)` statements whose values
/// are bound parameters: the server reads each value with its column's type, as it reads any
/// statement's parameters, and parses nothing else (a JSON array of the rows cost it a third
/// of its CPU for an ingest's events, lexed twice, and a COPY costs two round trips). Unlike a
/// COPY, they ride in a pipeline with other statements, so the rows cost no round trip of their
/// own. The rows go in chunks of fixed sizes (``chunkSizes``), so that a connection prepares
/// at most one statement per size however many rows it sends.
struct PipelinedRows {
    let table: String
    let columns: [String]
    /// The queued rows' values, a row after another.
    private(set) var values: [PostgresValue] = []
    private(set) var count = 0
    /// About how many bytes the queued values take.
    private(set) var bytes = 0

    /// Rows are sent once this much is queued, so that a long transaction keeps little.
    static let flushBytes = 4 << 20
    /// Rows are sent ahead (``PostgresConnection/sendAhead()``) once a table has this many
    /// queued: the server inserts them while the next events are computed. A queue is thus
    /// one statement of the largest size, or the tail of a transaction.
    static let aheadRows = 64
    /// The rows of one statement, largest first: n rows go as the largest chunks that fit
    /// (100 rows: 64 + 2 × 16 + 4; 3 rows: one statement). 64 rows of 12 columns are 768
    /// parameters, far below the protocol's 65,535.
    static let chunkSizes = [64, 16, 4, 3, 2, 1]

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
    }

    mutating func append(_ row: [PostgresValue]) {
        values += row
        count += 1
        for value in row {
            if case .text(let text) = value { bytes += text.utf8.count } else { bytes += 8 }
        }
    }

    /// The statements that insert the queued rows, in their order.
    var statements: [(sql: String, values: [PostgresValue])] {
        var statements: [(sql: String, values: [PostgresValue])] = []
        var (row, width) = (0, columns.count)
        for size in Self.chunkSizes {
            while count - row >= size {
                statements.append((sql(rows: size), Array(values[(row * width)..<((row + size) * width)])))
                row += size
            }
        }
        return statements
    }

    /// `INSERT INTO table (columns) VALUES (?, …), …` for `rows` rows.
    func sql(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
