import SQLite
import Store

/// The embedded store speaks the shared SQL through its one connection (statements cached by
/// their text).
extension SQLiteStore: SQLWriting {
    public func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        try connection.prepare(sql).query(values.map(\.sqlite)) { try body($0) }
    }

    public func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T? {
        try connection.prepare(sql).first(values.map(\.sqlite)) { try row($0) }
    }

    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try connection.run(sql, values.map(\.sqlite))
        return connection.changes
    }
}

extension Row: SQLRow {}

extension SQLValue {
    var sqlite: SQLiteValue {
        switch self {
        case .null: .null
        case .integer(let n): .integer(n)
        case .real(let d): .real(d)
        case .text(let s): .text(s)
        }
    }
}
