#if canImport(Glibc)
    import Glibc
#endif

/// SQL text as the key of a connection's prepared statements: hashed by its length and at most
/// 32 of its bytes (the first and the last 16), compared byte for byte, as the database reads
/// it (text that only looks the same, such as `é` composed and decomposed, is another
/// statement). Hashing every byte with the standard library's SipHash cost 1.4 k instructions
/// a lookup for a 300-byte insert, most of what looking a statement up cost; statements that
/// share those bytes and their length cost one comparison more, never a wrong statement.
public struct StatementKey: Hashable, Sendable {
    /// The SQL.
    public let sql: String

    public init(_ sql: String) {
        self.sql = sql
    }

    public static func == (a: StatementKey, b: StatementKey) -> Bool {
        let compared: Bool?? = a.sql.utf8.withContiguousStorageIfAvailable { x in
            b.sql.utf8.withContiguousStorageIfAvailable { y in
                x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
        if let compared = compared ?? nil { return compared }
        return a.sql.utf8.elementsEqual(b.sql.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes.count)
            let raw = UnsafeRawBufferPointer(bytes)
            guard raw.count >= 16 else { return hasher.combine(bytes: raw) }
            // Four words: the first 16 bytes and the last 16 (which may overlap them).
            hasher.combine(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 16, as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
        }
        if sampled == nil { hasher.combine(sql) }
    }
}
