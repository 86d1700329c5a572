import Core

/// Queued statements with runs of the same single-row insert (`INSERT INTO t (a, b) VALUES
/// (?, ?)`, nothing after it) merged into multi-row inserts (``PipelinedRows``): the server
/// starts one statement for the run instead of one per row (an ingest queues an event's
/// analytics rows one after another). Only adjacent statements are merged, so every row is
/// inserted in the same order, after and before the same statements, and takes the same
/// identity value; constraints are still checked for every row, at the end of the merged
/// statement instead of each row's own.
struct InsertRuns {
    /// Each single-row insert's SQL read, nil for any other statement.
    private var shapes: [String: InsertStatement?] = [:]

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

    private mutating func shape(of sql: String) -> InsertStatement? {
        if let known = shapes[sql] { return known }
        let found = InsertStatement.plain(sql)
        if shapes.count > 200 { shapes.removeAll() }
        shapes[sql] = found
        return found
    }
}
