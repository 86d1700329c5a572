/// The SQL the stores of the features speak: the same statements on every backend.
///
/// A feature keeps its rows through these two protocols, which ``StoreReader`` and ``Store``
/// refine, so it never names a backend. Statements use what SQLite and PostgreSQL both accept:
/// `?` (or `?N`) placeholders, `ON CONFLICT … DO NOTHING / DO UPDATE`, `RETURNING`, and no
/// backend-only functions (`max(a, b)` is SQLite's; write a `CASE`).
public protocol SQLReading: AnyObject {
    /// Runs a query with `values` bound to its placeholders and calls `body` with each row.
    func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws
    /// The first row of a query made by `row`, or nil when it returns none.
    func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T?
}

/// SQL that changes rows; only the engine's write path holds one (consumers get a reader).
public protocol SQLWriting: SQLReading {
    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int
}

/// One row of a result, read by column position (from 0).
public protocol SQLRow {
    func isNull(_ column: Int32) -> Bool
    func integer(_ column: Int32) -> Int64
    func real(_ column: Int32) -> Double
    func text(_ column: Int32) -> String?
    /// Calls `body` with the column's UTF-8 bytes (nil for NULL) without making a `String`: a
    /// rule's input is built from them as libjq values. The bytes live only during the call.
    func withUTF8<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R
}

extension SQLRow {
    /// The column's number, or nil when it is NULL.
    public func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }
}

/// A value bound to a placeholder.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// `.text(s)`, or `.null` for nil.
    public static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    /// `.real(d)`, or `.null` for nil.
    public static func optional(_ real: Double?) -> SQLValue { real.map(SQLValue.real) ?? .null }
    /// `.integer(n)`, or `.null` for nil.
    public static func optional(_ integer: Int64?) -> SQLValue { integer.map(SQLValue.integer) ?? .null }
    /// 1 or 0.
    public static func boolean(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}

extension SQLReading {
    /// The rows of a query, each made by `row`.
    public func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (any SQLRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try query(sql, values) { result.append(try row($0)) }
        return result
    }
}
