import Postgres
import Store

/// The shared SQL (``SQLWriting``) on a PostgreSQL connection: the same statements the
/// features' stores run on SQLite (`?` placeholders become `$n`), what the PostgreSQL store
/// is built on.
///
/// Not `Sendable`: it owns a connection, used from one thread.
public final class PostgresDatabase: SQLWriting {
    public let connection: PostgresConnection

    /// Connects to `url` (`postgresql://user@host:port/database`).
    public init(url: String) throws {
        connection = try PostgresConnection(url: url)
    }

    public func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        try connection.query(sql, values.map(\.postgres)) { try body($0) }
    }

    public func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T? {
        var found: T?
        try connection.query(sql, values.map(\.postgres)) { current in
            if found == nil { found = try row(current) }
        }
        return found
    }

    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try connection.run(sql, values.map(\.postgres))
    }

    /// Runs `body` in one transaction: all of it is kept, or none of it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(body)
    }
}

extension PostgresRow: SQLRow {}

extension SQLValue {
    var postgres: PostgresValue {
        switch self {
        case .null: .null
        case .integer(let n): .integer(n)
        case .real(let d): .real(d)
        case .text(let s): .text(s)
        }
    }
}
