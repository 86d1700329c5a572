import CSQLite

/// An SQLite failure: the result code, SQLite's message, and the SQL it happened in.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE).
    public var code: Int32
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`code & 0xFF`), e.g. SQLITE_BUSY, SQLITE_CONSTRAINT.
    public var primaryCode: Int32 { code & 0xFF }

    /// Whether this is a constraint violation (unique, foreign key, check, not null).
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql.count > 200 ? String(sql.prefix(200)) + "…" : sql))" }
        return text
    }
}
