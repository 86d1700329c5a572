import CPostgres
import Core

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a PostgreSQL server over libpq: statements with `?` placeholders
/// (prepared once per connection and text), rows read by position, transactions and
/// savepoints, errors with their SQLSTATE.
///
/// A connection the server dropped (a restart, a network cut) is opened again on its next use
/// outside a transaction: the statement that met the broken connection fails (its caller
/// answers 503 or retries), the ones after it run on the new connection. A transaction the
/// connection was lost in is never resumed: its work is gone, as the server rolled it back.
///
/// Not `Sendable`: a connection belongs to one thread (a worker has its own).
public final class PostgresConnection {
    let handle: OpaquePointer
    /// Prepared statements by their SQL (of the current session: emptied on reconnection).
    var prepared: [StatementKey: (name: String, parameters: Int)] = [:]
    /// Whether a transaction is open (BEGIN sent, no COMMIT or ROLLBACK yet).
    var inTransaction = false
    /// Statements run at the start of every session (see ``setUpSession(_:)``).
    private var sessionSetup: String?
    /// How many times the connection was opened again after the server dropped it.
    public private(set) var reconnections = 0
    /// The channels this session listens on (again after a reconnection).
    private var channels: [String] = []
    /// Statements queued by ``runDeferred(_:_:)``, sent before the next other statement.
    var deferred: [(sql: String, values: [PostgresValue])] = []
    /// Rows queued by ``copyDeferred(into:columns:_:)``, a COPY per table (in the order the
    /// tables were first queued), sent before a statement that names one of the tables.
    var copies: [CopyRows] = []
    /// Rows queued by ``insertDeferred(into:columns:_:)``, a queue per table (in the order
    /// the tables were first queued), sent in the next pipeline that names one of
    /// the tables, or before a savepoint's end or the commit.
    var rowQueues: [PipelinedRows] = []
    /// Merges the queued runs of one single-row insert (``flush(allRows:then:)``).
    var insertRuns = InsertRuns()
    /// The statements ``transaction(_:)`` starts a transaction with.
    public var transactionStart = ["BEGIN"]
    /// Whether the open transaction's start is still to be sent: it goes at the head of the
    /// transaction's first pipeline, so that beginning costs no round trip of its own.
    var startPending = false
    /// The statements sent ahead in the open pipeline whose results are not read yet (their
    /// SQL, to name one that failed): the connection is in pipeline mode while there are any.
    var ahead: [String] = []
    /// Whether a pipeline could not be left (the server went away in the middle of it): the
    /// session is opened again before its next use, as if it had been lost.
    var isStranded = false

    /// Connects to `url` (`postgresql://user@host:port/database`, or libpq's `key=value` form).
    public init(url: String) throws(PostgresError) {
        guard let handle = PQconnectdb(url) else {
            throw PostgresError(sqlState: nil, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines
            PQfinish(handle)
            throw PostgresError(sqlState: nil, message: "cannot connect: \(message)")
        }
        self.handle = handle
        _ = PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
    }

    deinit {
        PQfinish(handle)
    }

    /// Runs statements without parameters (DDL, several separated by `;`).
    public func execute(_ sql: String) throws(PostgresError) {
        try sendCopies()
        try flush(allRows: true)
        try ensureConnected()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs a statement that returns no rows; how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: [PostgresValue] = []) throws(PostgresError) -> Int {
        let result = try send(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a query and calls `body` with each row, in order.
    public func query(_ sql: String, _ values: [PostgresValue] = [], _ body: (PostgresRow) throws -> Void) throws {
        let result = try send(sql, values)
        defer { PQclear(result) }
        let rows = PQntuples(result)
        var index: Int32 = 0
        while index < rows {
            try body(PostgresRow(result: result, row: index))
            index += 1
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Its start is sent with its first statement (in one pipeline), not on its own.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try ensureConnected()  // a dropped session is opened again here, outside the transaction
        inTransaction = true
        startPending = true
        defer {
            inTransaction = false
            startPending = false
        }
        do {
            let value = try body()
            try commit()
            return value
        } catch {
            let started = !startPending
            dropQueued()
            startPending = false
            if started, isAlive { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Forgets what was queued and not sent (its transaction or savepoint is rolled back).
    private func dropQueued() {
        deferred.removeAll()
        copies.removeAll()
        rowQueues.removeAll()
        abandonAhead()
    }

    /// Commits the open transaction, in the same pipeline as what is still queued. A
    /// transaction a failed statement aborted (its error caught and dropped) answers COMMIT
    /// with ROLLBACK and no error: that is thrown here, since none of its changes were kept.
    private func commit() throws(PostgresError) {
        try sendCopies()
        let result = try flush(allRows: true, then: [("COMMIT", [])])[0]
        defer { PQclear(result) }
        let status = String(cString: PQcmdStatus(result))
        guard status == "COMMIT" else {
            throw PostgresError(
                sqlState: "25P02",
                message: "the transaction was aborted by an earlier failed statement and rolled back (\(status))",
                sql: "COMMIT")
        }
    }

    /// Runs `body` in a savepoint inside the current transaction: only its own changes are
    /// undone when it throws.
    public func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT \(name)")
        do {
            let value = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            dropQueued()
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    /// Runs `sql` now and again at the start of every session after a reconnection (settings
    /// such as `SET client_min_messages`).
    public func setUpSession(_ sql: String) throws(PostgresError) {
        try execute(sql)
        sessionSetup = sql
    }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { inTransaction }

    /// Whether the server still answers on this connection.
    public var isAlive: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Opens the session again when the server dropped it, outside a transaction; inside one
    /// the transaction is lost, and so is this statement.
    func ensureConnected() throws(PostgresError) {
        guard !isAlive || isStranded else { return }
        guard !inTransaction else {
            throw PostgresError(sqlState: "08003", message: "the connection was lost during the transaction")
        }
        PQreset(handle)
        isStranded = false
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(sqlState: "08001", message: "cannot reconnect: \(errorMessage)")
        }
        prepared.removeAll()
        reconnections += 1
        _ = PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
        if let sessionSetup {
            let result = PQexec(handle, sessionSetup)
            defer { PQclear(result) }
            try check(result, sql: sessionSetup)
        }
        for channel in channels {
            let result = PQexec(handle, "LISTEN \(channel)")
            PQclear(result)
        }
    }

    // MARK: Notifications

    /// Listens on `channel` (a plain identifier) from now on, again after each reconnection.
    public func listen(_ channel: String) throws(PostgresError) {
        guard !channel.isEmpty, channel.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw PostgresError(sqlState: "42602", message: "`\(channel)` is not a channel name")
        }
        try execute("LISTEN \(channel)")
        if !channels.contains(channel) { channels.append(channel) }
    }

    /// The socket to wait on for notifications (it changes after a reconnection), or nil when
    /// the connection is down.
    public var socketDescriptor: Int32? {
        let socket = PQsocket(handle)
        return socket < 0 ? nil : socket
    }

    /// Reads what the server sent without waiting; how many notifications arrived since the
    /// last call (also those read along with the answers of other statements).
    public func drainNotifications() -> Int {
        if PQstatus(handle) == CONNECTION_OK { _ = PQconsumeInput(handle) }
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }

    // MARK: Statements

    /// Runs a statement whose answer nobody waits for (an insert of a row nothing reads back)
    /// later: inside a transaction it is queued and sent with the other queued ones in one
    /// pipeline (libpq's pipeline mode), ahead once ``aheadStatements`` are queued, else with
    /// the next other statement, the savepoint's end or the commit; its error, if any, is thrown
    /// by the first of these that waits for an answer. Outside a transaction it runs now.
    public func runDeferred(_ sql: String, _ values: [PostgresValue]) throws(PostgresError) {
        guard inTransaction else {
            try run(sql, values)
            return
        }
        deferred.append((sql, values))
        if deferred.count >= Self.aheadStatements { try sendAhead() }
    }

    /// Queues a row for `table` (its `columns`, a value each) inside a transaction: the rows of
    /// a table go as a few multi-row statements (``PipelinedRows``), ahead once
    /// ``PipelinedRows/aheadRows`` are queued, else in the next pipeline whose statements name
    /// the table, before the savepoint's end or with the commit; its error is thrown by the first
    /// of these that waits for an answer. The rows cost no round trip of their own (a COPY costs
    /// two). Other statements may run in between, so whatever references these rows must check
    /// it at the commit (`DEFERRABLE` foreign keys, deferred by ``transactionStart``). Outside a
    /// transaction it is an INSERT run now.
    public func insertDeferred(into table: String, columns: [String], _ values: [PostgresValue]) throws(PostgresError) {
        guard inTransaction else {
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            try run("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
            return
        }
        guard values.count == columns.count else {
            throw PostgresError(
                sqlState: "07001", message: "\(values.count) values for \(columns.count) columns of \(table)")
        }
        let index: Int
        if let known = rowQueues.firstIndex(where: { $0.table == table && $0.columns == columns }) {
            index = known
        } else {
            rowQueues.append(PipelinedRows(table: table, columns: columns))
            index = rowQueues.count - 1
        }
        rowQueues[index].append(values)
        if rowQueues[index].count >= PipelinedRows.aheadRows || rowQueues[index].bytes >= PipelinedRows.flushBytes {
            try sendAhead()
        }
    }

    var errorMessage: String { String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines }

    /// Prepares `sql` once (its `?` placeholders as `$n`) and executes it with `values` as text.
    /// Queued statements go in the same pipeline, before it: one round trip for all.
    private func send(_ sql: String, _ values: [PostgresValue]) throws(PostgresError) -> OpaquePointer? {
        try sendCopies(before: sql)
        if startPending || !ahead.isEmpty || !deferred.isEmpty || rowQueues.contains(where: { sql.contains($0.table) })
        {
            return try flush(then: [(sql, values)])[0]
        }
        try ensureConnected()
        let statement = try prepare(sql, valueCount: values.count)
        let texts = values.map(\.text)
        let result = withCStrings(texts) { pointers in
            PQexecPrepared(handle, statement, Int32(values.count), pointers, nil, nil, 0)
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// The name of `sql` prepared on this session (once), checked to take `valueCount` values;
    /// `beforePreparing` runs first when `sql` is new to the session.
    func prepare(
        _ sql: String, valueCount: Int, beforePreparing: () throws(PostgresError) -> Void = {}
    ) throws(PostgresError) -> String {
        let key = StatementKey(sql)
        let statement: (name: String, parameters: Int)
        if let known = prepared[key] {
            statement = known
        } else {
            try beforePreparing()
            let (translated, parameters) = Placeholders.translate(sql)
            let name = "s\(prepared.count)"
            let result = PQprepare(handle, name, translated, Int32(parameters), nil)
            defer { PQclear(result) }
            try check(result, sql: sql)
            statement = (name, parameters)
            prepared[key] = statement
        }
        guard valueCount == statement.parameters else {
            throw PostgresError(
                sqlState: "07001", message: "\(valueCount) values for \(statement.parameters) placeholders", sql: sql)
        }
        return statement.name
    }

    func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) {
        guard let result else {
            throw PostgresError(
                sqlState: nil, message: errorMessage, sql: sql)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK: return
        default:
            throw PostgresError(result: result, sql: sql)
        }
    }
}
