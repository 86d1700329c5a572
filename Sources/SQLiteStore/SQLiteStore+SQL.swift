import SQLite
import Store

/// The embedded store speaks the shared SQL through its one connection (statements cached by
/// their text).
extension SQLiteStore: SQLWriting {
    public func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        reads.note(sql, values)
        try prepared(sql, values).queryBound { try body($0) }
    }

    public func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T? {
        reads.note(sql, values)
        return try prepared(sql, values).firstBound { try row($0) }
    }

    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        reads.note(sql, values)
        try prepared(sql, values).runBound()
        return connection.changes
    }

    /// The cached statement of `sql` with `values` bound (after `leading`, when given), each
    /// converted as it is bound.
    func prepared(_ sql: String, _ values: [SQLValue], after leading: SQLiteValue? = nil) throws -> Statement {
        let statement = try connection.prepare(sql)
        guard let leading else {
            try statement.bind(count: values.count) { values[$0].sqlite }
            return statement
        }
        try statement.bind(count: values.count + 1) { $0 == 0 ? leading : values[$0 - 1].sqlite }
        return statement
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
