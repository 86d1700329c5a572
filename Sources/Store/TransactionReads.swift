import Core

/// Reads of one user's or one dog's rows kept for the rest of the write transaction that made
/// them, so that a batch's events do not each ask the server again what an earlier event of the
/// batch read (on PostgreSQL every read is a round trip; on SQLite a statement).
///
/// Every statement the store runs passes ``note(_:_:leadingID:)`` first, and a kept read goes as
/// soon as a statement may change what it read: an `INSERT` of one row into its table with the
/// same values in the columns it is keyed by (`ON CONFLICT … DO UPDATE` only when those columns
/// are in the conflict target, so that the row updated has them too), any other write to its
/// table, any `DELETE` (foreign keys cascade) or statement that is not a plain `SELECT`,
/// `INSERT` or `UPDATE`. A read kept is exactly what the same query would answer now: the
/// transaction's own earlier writes included. Outside a transaction nothing is kept; the end of
/// the transaction, and any unit that rolls back, forget everything. Another instance cannot
/// change the rows meanwhile: a batch holds its users' writer locks to its end
/// (``Store/serializeWriters(of:)``), and only rows of those users are kept.
///
/// Not `Sendable`: it belongs to its store's thread.
public final class TransactionReads {
    private struct Entry {
        var table: String
        var keys: [(column: String, value: SQLValue)]
        var value: Any
        /// What a plain insert of one row the read may see makes of its answer (see
        /// ``KeptAfterInsert``); without it, such an insert forgets the read.
        var afterInsert: ((_ row: (String) -> SQLValue?, _ old: Any) -> Any?)?
    }

    /// What a statement may change.
    enum Write: Equatable {
        /// Nothing (a query).
        case none
        /// Any row of any table.
        case everything
        /// Any row of `table`.
        case table(String)
        /// One row of `table` inserted with `columns` bound in order; when it may update the
        /// row it conflicts with instead, the columns that row shares with it. `plain`: no
        /// `ON CONFLICT` (the row is inserted, or the statement fails).
        case insert(table: String, columns: [String], conflict: [String]?, plain: Bool)
    }

    /// The kept reads by the table they read, then by their SQL and values: a write looks at
    /// its own table's only.
    private var tables: [String: [String: Entry]] = [:]
    private var count = 0
    private var writes: [String: Write] = [:]
    private var depth = 0
    /// Reads answered from what was kept (for tests and benchmarks).
    public private(set) var hits = 0

    public init() {}

    /// A transaction starts (transactions may nest: only the outermost's end forgets).
    public func begin() { depth += 1 }

    /// A transaction ends, committed or not.
    public func end() {
        depth = max(0, depth - 1)
        if depth == 0 { forget() }
    }

    /// Forgets everything (a unit rolled back).
    public func forget() {
        tables.removeAll(keepingCapacity: true)
        count = 0
    }

    /// The store is about to run `sql` with `values` (after a row id bound first, for
    /// ``Store/insertRow(into:_:_:)``): forgets the reads it may change.
    public func note(_ sql: String, _ values: [SQLValue], leadingID: Bool = false) {
        guard count > 0 else { return }
        let write: Write
        if let known = writes[sql] {
            write = known
        } else {
            write = Self.write(of: sql)
            if writes.count > 2_000 { writes.removeAll() }
            writes[sql] = write
        }
        switch write {
        case .none: return
        case .everything: forget()
        case .table(let table): forget(table)
        case .insert(let table, let columns, let conflict, let plain):
            let offset = leadingID ? 1 : 0
            guard values.count + offset == columns.count else { return forget(table) }
            guard let entries = tables[table] else { return }
            let seen = entries.compactMap { key, entry -> String? in
                // Kept only when the inserted (or updated) row is not one the read could see.
                let unseen = entry.keys.contains { key in
                    guard let index = columns.firstIndex(of: key.column), index >= offset else { return false }
                    if let conflict, !conflict.contains(key.column) { return false }
                    return values[index - offset] != key.value
                }
                return unseen ? nil : key
            }
            func column(_ name: String) -> SQLValue? {
                guard let index = columns.firstIndex(of: name), index >= offset else { return nil }
                return values[index - offset]
            }
            for key in seen {
                if plain, let entry = entries[key], let update = entry.afterInsert,
                    let answer = update(column, entry.value)
                {
                    tables[table]?[key]?.value = answer
                } else {
                    tables[table]?[key] = nil
                    count -= 1
                }
            }
        }
    }

    /// Forgets the reads of `table`.
    private func forget(_ table: String) {
        guard let entries = tables.removeValue(forKey: table) else { return }
        count -= entries.count
    }

    /// Keeps `entry` under `key`, forgetting everything first once 10,000 are kept.
    private func store(_ entry: Entry, at key: String) {
        if count >= 10_000 { forget() }
        if tables[entry.table, default: [:]].updateValue(entry, forKey: key) == nil { count += 1 }
    }

    /// The value kept for `sql` with `values`, made by `make` (and kept, inside a transaction)
    /// when there is none; `table` is the one table it reads, `keys` columns it is restricted
    /// to by equality.
    func value<T>(
        _ sql: String, _ values: [SQLValue], table: String, keys: [(column: String, value: SQLValue)],
        afterInsert: ((_ row: (String) -> SQLValue?, _ old: Any) -> Any?)? = nil, make: () throws -> T
    ) rethrows -> T {
        guard depth > 0 else { return try make() }
        let key = Self.key(sql, values)
        if let entry = tables[table]?[key], let value = entry.value as? T {
            hits += 1
            return value
        }
        let value = try make()
        store(Entry(table: table, keys: keys, value: value, afterInsert: afterInsert), at: key)
        return value
    }

    /// Keeps `value` as what `sql` with `values` answers now, read along with others by one
    /// wider query (``StoreReader/keepRows(_:batchSQL:table:column:of:_:)``), as ``value(_:_:table:keys:make:)``
    /// would keep it; nothing outside a transaction.
    func keep<T>(
        _ sql: String, _ values: [SQLValue], table: String, keys: [(column: String, value: SQLValue)], value: T,
        afterInsert: ((_ row: (String) -> SQLValue?, _ old: Any) -> Any?)? = nil
    ) {
        guard depth > 0 else { return }
        store(Entry(table: table, keys: keys, value: value, afterInsert: afterInsert), at: Self.key(sql, values))
    }

    /// Whether reads are kept now (inside a transaction).
    public var isKeeping: Bool { depth > 0 }

    private static func key(_ sql: String, _ values: [SQLValue]) -> String {
        var key = sql
        for value in values {
            switch value {
            case .null: key += "\u{1}n"
            case .integer(let n): key += "\u{1}i\(n)"
            case .real(let d): key += "\u{1}r\(d.bitPattern)"
            case .text(let s): key += "\u{1}t" + s
            }
        }
        return key
    }

    /// What `sql` may change, read from its text.
    static func write(of sql: String) -> Write {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }).prefix(3)
            .map { $0.uppercased() }
        guard let verb = words.first else { return .none }
        switch verb {
        case "SELECT": return sql.contains(";") ? .everything : .none
        case "UPDATE":
            guard words.count > 1, !sql.contains(";") else { return .everything }
            return .table(words[1].lowercased())
        case "INSERT":
            guard words.count > 2, words[1] == "INTO", !sql.contains(";") else { return .everything }
            guard let insert = InsertStatement(sql) else { return .table(words[2].lowercased()) }
            let table = insert.table.lowercased()
            switch insert.onConflict {
            case nil: return .insert(table: table, columns: insert.columns, conflict: nil, plain: true)
            case .doNothing: return .insert(table: table, columns: insert.columns, conflict: nil, plain: false)
            case .doUpdate(let target):
                return .insert(table: table, columns: insert.columns, conflict: target, plain: false)
            }
        default: return .everything
        }
    }
}

extension StoreReader {
    /// The rows of `sql`, which reads only `table` and only rows whose `keys` columns have
    /// those values (a user's, a dog's): kept for the rest of the write transaction until a
    /// statement may change them (``TransactionReads``).
    public func keptRows<T>(
        _ sql: String, _ values: [SQLValue], table: String, keys: [(column: String, value: SQLValue)],
        _ row: (any SQLRow) throws -> T
    ) throws -> [T] {
        guard let reads = transactionReads else { return try rows(sql, values, row) }
        return try reads.value(sql, values, table: table, keys: keys) { try rows(sql, values, row) }
    }

    /// The first row of `sql`, kept like ``keptRows(_:_:table:keys:_:)``; with `afterInsert`,
    /// a plain insert of a row the read may see updates the answer kept instead of forgetting it.
    public func keptFirst<T>(
        _ sql: String, _ values: [SQLValue], table: String, keys: [(column: String, value: SQLValue)],
        afterInsert: KeptAfterInsert<T>? = nil, _ row: (any SQLRow) throws -> T
    ) throws -> T? {
        guard let reads = transactionReads else { return try first(sql, values, row) }
        return try reads.value(sql, values, table: table, keys: keys, afterInsert: afterInsert?.erased) {
            try first(sql, values, row)
        }
    }

    /// Keeps `answer` as what ``keptFirst(_:_:table:keys:afterInsert:_:)`` with the same
    /// arguments answers now, read by a wider query of the caller's that read it for several
    /// keys at once; nothing outside a transaction.
    public func keepFirst<T>(
        _ sql: String, _ values: [SQLValue], table: String, keys: [(column: String, value: SQLValue)],
        afterInsert: KeptAfterInsert<T>? = nil, answer: T?
    ) {
        guard let reads = transactionReads, reads.isKeeping else { return }
        reads.keep(sql, values, table: table, keys: keys, value: answer, afterInsert: afterInsert?.erased)
    }
}

/// How a plain insert (no `ON CONFLICT`) of one row a kept first-row read may see changes its
/// answer, computed from the row's values by column (`update`) and the answer kept: the read
/// then costs no second query. `update` answers nil when it cannot tell (the read is then
/// forgotten), else the new answer (which may be no row: `.some(nil)`).
public struct KeptAfterInsert<T> {
    public var update: (_ row: (String) -> SQLValue?, _ old: T?) -> T??

    public init(_ update: @escaping (_ row: (String) -> SQLValue?, _ old: T?) -> T??) {
        self.update = update
    }

    var erased: (_ row: (String) -> SQLValue?, _ old: Any) -> Any? {
        let update = self.update
        return { row, old in
            guard let old = old as? T? else { return nil }
            guard let answer = update(row, old) else { return nil }
            return .some(answer as Any)  // the answer boxed whole, no row included
        }
    }
}

extension StoreReader {
    /// Reads at once, for each of `keys` (a column's values), the rows `sql` reads for that one
    /// value: `batchSQL` reads them for many (its one `IN (…)` is given as `{keys}`, and its
    /// first column is the key, the rest as `sql`'s), and each key's rows are kept for the rest
    /// of the write transaction as ``keptRows(_:_:table:keys:_:)`` would keep them; `batchSQL`
    /// must order each key's rows as `sql` does. Nothing is read outside a transaction.
    public func keepRows<T>(
        _ sql: String, batchSQL: String, table: String, column: String, of keys: [String],
        _ row: (any SQLRow) throws -> T
    ) throws {
        guard let reads = transactionReads, reads.isKeeping, !keys.isEmpty else { return }
        try inChunks(of: keys) { chunk, placeholders in
            var found: [String: [T]] = [:]
            try query(batchSQL.replacingOccurrences(of: "{keys}", with: placeholders), chunk.map(SQLValue.text)) {
                found[$0.text(0) ?? "", default: []].append(try row(ShiftedRow(base: $0)))
            }
            for key in Set(chunk) {
                reads.keep(sql, [.text(key)], table: table, keys: [(column, .text(key))], value: found[key] ?? [])
            }
        }
    }

    /// Calls `body` with `keys` (without repeats) as many at a time as the largest of `sizes`
    /// (ascending), each chunk padded to the smallest size that holds it by repeating its first
    /// key (few sizes of `IN (…)`, so that few statements are prepared), and `placeholder` as
    /// many times, comma-separated: a read of many keys at once.
    public func inChunks<Key: Hashable & Comparable>(
        of keys: [Key], sizes: [Int] = [8, 100], placeholder: String = "?", _ body: ([Key], String) throws -> Void
    ) throws {
        let unique = Array(Set(keys)).sorted()
        let largest = sizes.last ?? 100
        var start = 0
        while start < unique.count {
            var chunk = Array(unique[start..<min(start + largest, unique.count)])
            start += chunk.count
            let size = sizes.first { $0 >= chunk.count } ?? chunk.count
            chunk += repeatElement(chunk[0], count: size - chunk.count)
            try body(chunk, Array(repeating: placeholder, count: size).joined(separator: ", "))
        }
    }
}

/// A row read without its first column (the key of ``StoreReader/keepRows(_:batchSQL:table:column:of:_:)``).
private struct ShiftedRow: SQLRow {
    let base: any SQLRow
    func isNull(_ index: Int32) -> Bool { base.isNull(index + 1) }
    func integer(_ index: Int32) -> Int64 { base.integer(index + 1) }
    func real(_ index: Int32) -> Double { base.real(index + 1) }
    func text(_ index: Int32) -> String? { base.text(index + 1) }
    func withUTF8<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        try base.withUTF8(index + 1, body)
    }
}
