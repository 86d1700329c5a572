import CPostgres

/// Rows sent with COPY (``copyDeferred(into:columns:_:)``): for the raw benchmark's baseline;
/// the engine's own rows ride in pipelines (``insertDeferred(into:columns:_:)``).
extension PostgresConnection {
    /// Queues a row for `table` (its `columns`, a value each) inside a transaction: the rows
    /// of a table go in one COPY before the next statement that names the table (or any
    /// queued statement that does), before the savepoint's end or the commit, where its error
    /// is thrown; much cheaper for the server than an INSERT a row. Other statements may run
    /// in between, so whatever references these rows must check it at the commit
    /// (`DEFERRABLE` foreign keys, deferred by ``transactionStart``). Outside a transaction it
    /// is an INSERT run now.
    public func copyDeferred(into table: String, columns: [String], _ values: [PostgresValue]) throws(PostgresError) {
        guard inTransaction else {
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            try run("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
            return
        }
        let columnList = columns.joined(separator: ", ")
        if let index = copies.firstIndex(where: { $0.table == table && $0.columns == columnList }) {
            copies[index].append(values)
            if copies[index].data.count >= CopyRows.flushBytes { try sendCopies() }
        } else {
            var rows = CopyRows(table: table, columns: columnList)
            rows.append(values)
            copies.append(rows)
        }
    }

    /// Sends the queued COPYs when `sql` names one of their tables.
    func sendCopies(before sql: String) throws(PostgresError) {
        if copies.contains(where: { sql.contains($0.table) }) { try sendCopies() }
    }

    /// Sends the queued rows, a COPY per table (COPY has no pipeline mode: two round trips each).
    func sendCopies() throws(PostgresError) {
        guard !copies.isEmpty else { return }
        let pending = copies
        copies.removeAll()
        if startPending || !ahead.isEmpty { try flush() }  // the transaction's start before its rows
        try ensureConnected()
        for rows in pending {
            let sql = "COPY \(rows.table) (\(rows.columns)) FROM STDIN"
            let start = PQexec(handle, sql)
            guard PQresultStatus(start) == PGRES_COPY_IN else {
                defer { PQclear(start) }
                try check(start, sql: sql)
                throw PostgresError(sqlState: nil, message: "the server did not start the COPY", sql: sql)
            }
            PQclear(start)
            let sent = rows.data.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            var failure: PostgresError?
            if sent != 1 {
                failure = PostgresError(
                    sqlState: nil, message: "cannot send the COPY's rows: \(errorMessage)", sql: sql)
                _ = PQputCopyEnd(handle, "the client could not send the rows")
            } else if PQputCopyEnd(handle, nil) != 1 {
                failure = PostgresError(sqlState: nil, message: "cannot end the COPY: \(errorMessage)", sql: sql)
            }
            while let result = PQgetResult(handle) {
                if failure == nil, PQresultStatus(result) != PGRES_COMMAND_OK {
                    failure = PostgresError(result: result, sql: sql)
                }
                PQclear(result)
            }
            if let failure { throw failure }
        }
    }
}
