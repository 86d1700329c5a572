import CPostgres
import Core

/// libpq's pipeline mode: queued statements go to the server without waiting for each one's
/// answer. Inside a transaction the queue is sent ahead once it holds a batch's worth
/// (``sendAhead()``), so that the server inserts those rows while this side computes the next
/// events; their results are read, and their first error thrown, at the next statement that
/// waits for an answer (a read, a savepoint's end, the commit), as if they had been sent with
/// it. Nothing is reported committed before the commit's own answer is read.
extension PostgresConnection {
    /// Queued statements are sent ahead once this many are queued.
    static let aheadStatements = 128

    /// Sends what is queued (statements, then all queued rows) without waiting for answers.
    func sendAhead() throws(PostgresError) {
        guard copies.isEmpty else {  // a COPY cannot ride in a pipeline
            try flush()
            return
        }
        var pending = insertRuns.merged(deferred) + takeRows(all: true, naming: [])
        deferred.removeAll(keepingCapacity: true)
        guard !pending.isEmpty else { return }
        if startPending { pending = transactionStart.map { ($0, []) } + pending }
        let names = try prepareAll(pending)
        try sendPipelined(pending, names)
        guard PQflush(handle) == 0 else {
            throw PostgresError(sqlState: nil, message: "cannot send the pipeline: \(errorMessage)")
        }
    }

    /// Sends the queued statements in one pipeline, after the queued rows of the tables they
    /// (or `tail`) name (all queued rows when `allRows`) and followed by `tail`, and reads
    /// their results and those of the statements sent ahead; the first error, else a result
    /// for each of `tail` (the caller clears them).
    @discardableResult
    func flush(allRows: Bool = false, then tail: [(sql: String, values: [PostgresValue])] = [])
        throws(PostgresError) -> [OpaquePointer]
    {
        let statements = deferred.map(\.sql) + tail.map(\.sql)
        // The queued statements before the rows: a row may refer to what they insert (an event
        // to its user), and what refers to the rows is checked at the commit (deferrable keys).
        var pending = insertRuns.merged(deferred) + takeRows(all: allRows, naming: statements)
        deferred.removeAll(keepingCapacity: true)
        guard !pending.isEmpty || !tail.isEmpty || startPending || !ahead.isEmpty else { return [] }
        for item in pending + tail { try sendCopies(before: item.sql) }
        if startPending { pending = transactionStart.map { ($0, []) } + pending }
        pending += tail
        let names = try prepareAll(pending)
        try sendPipelined(pending, names)
        return try readPipeline(keepingLast: tail.count)
    }

    /// The queued rows' statements (taken from the queue): all of them, or those of the tables
    /// `statements` name.
    private func takeRows(all: Bool, naming statements: [String]) -> [(sql: String, values: [PostgresValue])] {
        guard !rowQueues.isEmpty else { return [] }
        var taken: [(sql: String, values: [PostgresValue])] = []
        rowQueues.removeAll { rows in
            guard all || statements.contains(where: { $0.contains(rows.table) }) else { return false }
            taken += rows.statements
            return true
        }
        return taken
    }

    /// The prepared names of `statements`. A statement new to the session is prepared by a
    /// round trip of its own, which pipeline mode does not allow: what was sent ahead is read
    /// first (and its error thrown).
    private func prepareAll(_ statements: [(sql: String, values: [PostgresValue])]) throws(PostgresError) -> [String] {
        try ensureConnected()
        var names: [String] = []
        names.reserveCapacity(statements.count)
        for item in statements {
            let name = try prepare(item.sql, valueCount: item.values.count) { () throws(PostgresError) in
                if !ahead.isEmpty { _ = try readPipeline(keepingLast: 0) }
            }
            names.append(name)
        }
        return names
    }

    /// Sends `statements` (prepared as `names`) in the pipeline, entering pipeline mode first
    /// when nothing was sent ahead.
    private func sendPipelined(_ statements: [(sql: String, values: [PostgresValue])], _ names: [String])
        throws(PostgresError)
    {
        if ahead.isEmpty, PQenterPipelineMode(handle) != 1 {
            throw PostgresError(sqlState: nil, message: "cannot enter pipeline mode: \(errorMessage)")
        }
        startPending = false  // sent from here on (a failure later is the transaction's)
        for (item, name) in zip(statements, names) {
            let accepted = withCStrings(item.values.map(\.text)) { pointers in
                PQsendQueryPrepared(handle, name, Int32(item.values.count), pointers, nil, nil, 0)
            }
            guard accepted == 1 else {
                let failure = PostgresError(sqlState: nil, message: errorMessage, sql: item.sql)
                abandonAhead()
                throw failure
            }
            ahead.append(item.sql)
        }
    }

    /// Ends the pipeline with a sync and reads every sent statement's results, leaving pipeline
    /// mode; the first error, else the first result of each of the last `count` statements
    /// (the caller clears them).
    private func readPipeline(keepingLast count: Int) throws(PostgresError) -> [OpaquePointer] {
        var failure: PostgresError?
        if PQpipelineSync(handle) != 1 {
            failure = PostgresError(sqlState: nil, message: "cannot send the pipeline: \(errorMessage)")
        }
        // Each statement's results end with a null; then the sync's own result.
        var kept: [OpaquePointer] = []
        let keepFrom = ahead.count - count
        for (index, sql) in ahead.enumerated() {
            var first = true
            while let result = PQgetResult(handle) {
                if failure == nil, PQresultStatus(result) == PGRES_FATAL_ERROR {
                    failure = PostgresError(result: result, sql: sql)
                }
                if index >= keepFrom, first {
                    kept.append(result)
                } else {
                    PQclear(result)
                }
                first = false
            }
        }
        let last = ahead.last
        ahead.removeAll(keepingCapacity: true)
        if let sync = PQgetResult(handle) { PQclear(sync) }
        if PQexitPipelineMode(handle) != 1 {
            isStranded = true
            if failure == nil {
                failure = PostgresError(sqlState: nil, message: "cannot leave pipeline mode: \(errorMessage)")
            }
        }
        if failure == nil, kept.count != count {
            failure = PostgresError(sqlState: nil, message: "no result: \(errorMessage)", sql: last)
        }
        if let failure {
            for result in kept { PQclear(result) }
            throw failure
        }
        return kept
    }

    /// Reads and forgets what was sent ahead (its transaction or savepoint is rolled back),
    /// leaving pipeline mode; a connection that was lost leaves it when opened again.
    func abandonAhead() {
        guard !ahead.isEmpty else { return }
        if isAlive {
            _ = try? readPipeline(keepingLast: 0)
        } else {
            ahead.removeAll()
            isStranded = PQexitPipelineMode(handle) != 1
        }
    }
}
