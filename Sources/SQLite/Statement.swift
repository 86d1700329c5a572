import CSQLite

/// A prepared statement, owned here and finalized when this goes away.
///
/// Bind parameters by position (1-based), step through rows, read columns by index. A
/// statement from ``Connection/prepare(_:)`` is cached: ``run(_:)`` and ``query(_:_:)`` reset it
/// and clear its bindings before use.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text, for errors.
    public let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws(SQLiteError) {
        self.connection = connection
        self.sql = sql
        var handle: OpaquePointer?
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard result == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw connection.error(result, sql: sql)
        }
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// How many times SQLite compiled the statement again since it was prepared.
    public var reprepareCount: Int { Int(journey_sqlite3_reprepare_count(handle)) }

    /// How many virtual machine operations SQLite ran for the statement since it was prepared
    /// (rows read included): a measure of its work that does not depend on the clock.
    public var virtualMachineSteps: Int { Int(journey_sqlite3_vm_steps(handle)) }

    /// Binds `values` to parameters 1…n after resetting the statement.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds `count` values to parameters 1…count after resetting the statement, `value(i)` to
    /// parameter i + 1: values kept in another type are bound without an array of them.
    public func bind(count: Int, _ value: (Int) -> SQLiteValue) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for offset in 0..<count {
            try bind(value(offset), at: Int32(offset + 1))
        }
    }

    /// Binds one value to parameter `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let n): result = sqlite3_bind_int64(handle, index, n)
        case .real(let d): result = sqlite3_bind_double(handle, index, d)
        case .text(let s):
            var s = s
            result = s.withUTF8 { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return journey_sqlite3_bind_text_copy(handle, index, "", 0)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    journey_sqlite3_bind_text_copy(handle, index, $0, Int32(bytes.count))
                }
            }
        case .blob(let bytes):
            result = bytes.withUnsafeBytes {
                journey_sqlite3_bind_blob_copy(handle, index, $0.baseAddress, Int32($0.count))
            }
        }
        guard result == SQLITE_OK else { throw connection.error(result, sql: sql) }
    }

    /// Steps once; true when a row is available.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(result, sql: sql)
        }
    }

    /// Runs a statement that returns no rows, with `values` bound.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        try runBound()
    }

    /// Runs a query, handing each row to `body`.
    public func query(_ values: [SQLiteValue] = [], _ body: (Row) throws -> Void) throws {
        try bind(values)
        try queryBound(body)
    }

    /// The first row of a query mapped by `body`, or nil when there is none.
    public func first<T>(_ values: [SQLiteValue] = [], _ body: (Row) throws -> T) throws -> T? {
        try bind(values)
        return try firstBound(body)
    }

    /// ``run(_:)`` with the values bound already (``bind(count:_:)``).
    public func runBound() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// ``query(_:_:)`` with the values bound already.
    public func queryBound(_ body: (Row) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step() { try body(Row(statement: self)) }
    }

    /// ``first(_:_:)`` with the values bound already.
    public func firstBound<T>(_ body: (Row) throws -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return try body(Row(statement: self))
    }
}

/// The current row of a statement; valid only inside the closure it was given to.
public struct Row {
    let statement: Statement

    /// The storage class of column `index` in this row.
    public enum ColumnType: Sendable { case integer, real, text, blob, null }

    public func type(_ index: Int32) -> ColumnType {
        switch sqlite3_column_type(statement.handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Column `index` as the value it holds.
    public func value(_ index: Int32) -> SQLiteValue {
        switch type(index) {
        case .integer: .integer(integer(index))
        case .real: .real(real(index))
        case .text: .text(text(index) ?? "")
        case .blob: .blob(blob(index) ?? [])
        case .null: .null
        }
    }

    /// Whether column `index` (0-based) is NULL.
    public func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement.handle, index) == SQLITE_NULL
    }

    public func integer(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement.handle, index)
    }

    public func real(_ index: Int32) -> Double {
        sqlite3_column_double(statement.handle, index)
    }

    /// Column `index` as text; nil for NULL.
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement.handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with column `index`'s UTF-8 bytes as SQLite holds them (nil for NULL),
    /// without making a `String`; the bytes live only during the call.
    public func withUTF8<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        guard let pointer = sqlite3_column_text(statement.handle, index) else { return try body(nil) }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        return try body(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as bytes; nil for NULL.
    public func blob(_ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement.handle, index) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement.handle, index) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A value bound to a statement parameter.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }

    /// `.text(s)`, or `.null` for nil.
    public static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
}
