import CPostgres

/// A failure of libpq or of the server: what was being done, the server's SQLSTATE when it
/// gave one (`23505` unique violation, `40001` serialization failure, `08006` connection
/// failure…) and its message, with the statement.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE, or nil for failures without one (cannot connect).
    public var sqlState: String?
    public var message: String
    public var sql: String?

    public init(sqlState: String?, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The server's error in `result` (a failed statement's): its SQLSTATE and message.
    init(result: OpaquePointer, sql: String?) {
        self.init(
            sqlState: PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) },
            message: String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines, sql: sql)
    }

    /// Whether the connection is gone (class 08, or no state at all from a dead connection).
    public var isConnectionLost: Bool { sqlState?.hasPrefix("08") ?? true }

    /// Whether the same work may succeed when tried again: a serialization failure (`40001`),
    /// a deadlock (`40P01`), a lost connection, or the server shutting down (`57P01`–`57P03`).
    public var isTransient: Bool {
        guard let sqlState else { return true }
        return sqlState == "40001" || sqlState == "40P01" || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    public var description: String {
        var text = "PostgreSQL"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
