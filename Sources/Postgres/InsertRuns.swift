/// Queued statements with runs of the same single-row insert (`INSERT INTO t (a, b) VALUES
/// (?, ?)`, nothing after it) merged into multi-row inserts (``PipelinedRows``): the server
/// starts one statement for the run instead of one per row (an ingest queues an event's
/// analytics rows one after another). Only adjacent statements are merged, so every row is
/// inserted in the same order, after and before the same statements, and takes the same
/// identity value; constraints are still checked for every row, at the end of the merged
/// statement instead of each row's own.
struct InsertRuns {
    /// Each single-row insert's SQL read, nil for any other statement.
    private var shapes: [String: SingleRowInsert?] = [:]

    mutating func merged(_ statements: [(sql: String, values: [PostgresValue])]) -> [(
        sql: String, values: [PostgresValue]
    )] {
        var merged: [(sql: String, values: [PostgresValue])] = []
        merged.reserveCapacity(statements.count)
        var index = statements.startIndex
        while index < statements.endIndex {
            let sql = statements[index].sql
            var end = index + 1
            while end < statements.endIndex, statements[end].sql == sql { end += 1 }
            if end - index > 1, let shape = shape(of: sql),
                statements[index..<end].allSatisfy({ $0.values.count == shape.columns.count })
            {
                var rows = PipelinedRows(table: shape.table, columns: shape.columns)
                for statement in statements[index..<end] { rows.append(statement.values) }
                merged += rows.statements
            } else {
                merged += statements[index..<end]
            }
            index = end
        }
        return merged
    }

    private mutating func shape(of sql: String) -> SingleRowInsert? {
        if let known = shapes[sql] { return known }
        let found = SingleRowInsert(sql)
        if shapes.count > 200 { shapes.removeAll() }
        shapes[sql] = found
        return found
    }
}

/// A plain single-row insert's SQL, `INSERT INTO table (a, b) VALUES (?, ?)`: names and `?`
/// placeholders only, nothing after the values.
public struct SingleRowInsert: Equatable, Sendable {
    public let table: String
    public let columns: [String]

    /// Nil unless `sql` is such an insert.
    public init?(_ sql: String) {
        var text = Self.trimmed(Substring(sql))
        let prefix = "INSERT INTO "
        guard text.hasPrefix(prefix), let open = text.firstIndex(of: "("), let close = text.firstIndex(of: ")")
        else { return nil }
        let table = Self.trimmed(text[text.index(text.startIndex, offsetBy: prefix.count)..<open])
        let columns = text[text.index(after: open)..<close].split(separator: ",", omittingEmptySubsequences: false)
            .map(Self.trimmed)
        text = Self.trimmed(text[text.index(after: close)...])
        guard text.hasPrefix("VALUES") else { return nil }
        let placeholders = String(text.dropFirst("VALUES".count).filter { !$0.isWhitespace })
        guard Self.isName(table), columns.allSatisfy(Self.isName),
            placeholders == "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        else { return nil }
        self.table = String(table)
        self.columns = columns.map(String.init)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text.drop { $0.isWhitespace }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }

    private static func isName(_ name: Substring) -> Bool {
        !name.isEmpty && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
