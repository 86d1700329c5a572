import CPostgres

/// A value bound to a placeholder, sent as text (the server reads it by the column's type).
public enum PostgresValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var text: String? {
        switch self {
        case .null: nil
        case .integer(let n): String(n)
        case .real(let d): d.isNaN ? "NaN" : d.isInfinite ? (d < 0 ? "-Infinity" : "Infinity") : "\(d)"
        case .text(let s): s
        }
    }
}

/// One row of a result, read by column position (from 0).
public struct PostgresRow {
    let result: OpaquePointer?
    let row: Int32

    public func isNull(_ column: Int32) -> Bool { PQgetisnull(result, row, column) == 1 }
    public func text(_ column: Int32) -> String? {
        isNull(column) ? nil : String(cString: PQgetvalue(result, row, column))
    }
    /// Calls `body` with the column's text bytes as libpq holds them (nil for NULL), without
    /// making a `String`; the bytes live only during the call.
    public func withUTF8<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return try body(nil) }
        let count = Int(PQgetlength(result, row, column))
        return try value.withMemoryRebound(to: UInt8.self, capacity: count) {
            try body(UnsafeBufferPointer(start: $0, count: count))
        }
    }
    /// An integer column (or a boolean one: `t` is 1).
    public func integer(_ column: Int32) -> Int64 {
        guard let text = text(column) else { return 0 }
        if text == "t" { return 1 }
        if text == "f" { return 0 }
        return Int64(text) ?? Int64(Double(text) ?? 0)
    }
    public func real(_ column: Int32) -> Double {
        guard let text = text(column) else { return 0 }
        return Double(text) ?? 0
    }
}
