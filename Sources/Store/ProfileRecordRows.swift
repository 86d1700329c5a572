import Core

/// How profile records are read on every backend: the columns, the row they make, and the
/// records one block added.
extension ProfileRecord {
    /// `id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id`.
    static let columns = "id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id"

    /// A record of `dog` from a row of ``columns``.
    init(row: any SQLRow, dog: String) throws {
        self.init(
            id: row.integer(0), dogID: dog, kind: row.text(1) ?? "", recordedAt: row.real(2),
            recordedAtText: row.text(3) ?? "", payload: try StoredJSON.parse(row.text(4)), source: row.text(5) ?? "",
            ruleRevision: row.text(6), blockID: row.text(7))
    }
}

extension StoreReader {
    /// The records of `dog` that block `block` added (of `source`, when given), oldest first:
    /// read without the dog's other records.
    public func records(dog: String, block: String, source: String? = nil) throws -> [ProfileRecord] {
        try rows(
            """
            SELECT \(ProfileRecord.columns) FROM profile_records
            WHERE dog_id = ? AND block_id = ?\(source == nil ? "" : " AND source = ?") ORDER BY recorded_at, id
            """, [.text(dog), .text(block)] + (source.map { [SQLValue.text($0)] } ?? [])
        ) { try ProfileRecord(row: $0, dog: dog) }
    }
}

/// A kind's newest records of a dog, newest first.
private let newestOfKind = """
    SELECT \(ProfileRecord.columns) FROM profile_records
    WHERE dog_id = ? AND kind = ? ORDER BY recorded_at DESC, id DESC LIMIT ?
    """

/// A kind's newest records of a dog recorded at or after a time, newest first.
private let newestOfKindSince = """
    SELECT \(ProfileRecord.columns) FROM profile_records
    WHERE dog_id = ? AND kind = ? AND recorded_at >= ? ORDER BY recorded_at DESC, id DESC LIMIT ?
    """

extension StoreReader {
    /// The newest `perKind` records of each kind of `dog`, oldest first (ties by id): the window
    /// a rule sees. Its cost follows the window, not the dog's history: the kinds are found by
    /// skipping through the `(dog_id, kind, recorded_at)` index, then each kind's newest rows
    /// are read from its end. (Kinds are named by rules and the catalog, not by users.)
    public func newestRecords(dog: String, perKind: Int) throws -> [ProfileRecord] {
        try newestRecords(dog: dog, perKind: perKind) { try ProfileRecord(row: $0, dog: dog) }
    }

    /// ``newestRecords(dog:perKind:)`` with each record made by `make` from a row of
    /// ``ProfileRecord/columns`` (a rule's input built straight from the rows); with `kinds`,
    /// only the records of those kinds, and with `since` only those of the window recorded at or
    /// after it (the same ones, without reading the others: each kind's newest rows since then).
    public func newestRecords<T>(
        dog: String, perKind: Int, kinds selected: Set<String>? = nil, since: Double? = nil,
        _ make: (any SQLRow) throws -> T
    ) throws -> [T] {
        let kinds =
            try selected.map { $0.sorted() }
            ?? rows(
                """
                WITH RECURSIVE kinds (kind) AS (
                    SELECT min(kind) FROM profile_records WHERE dog_id = ?
                    UNION ALL
                    SELECT (SELECT min(next.kind) FROM profile_records AS next WHERE next.dog_id = ? AND next.kind > kinds.kind)
                    FROM kinds WHERE kinds.kind IS NOT NULL
                )
                SELECT kind FROM kinds WHERE kind IS NOT NULL
                """, [.text(dog), .text(dog)]
            ) { $0.text(0) ?? "" }
        // Each kind's rows come newest first; their places, not the values, are sorted.
        var values: [T] = []
        var order: [(at: Double, id: Int64, index: Int)] = []
        for kind in kinds {
            let limit = SQLValue.integer(Int64(max(perKind, 0)))
            let (statement, arguments): (String, [SQLValue]) =
                since.map { (newestOfKindSince, [.text(dog), .text(kind), .real($0), limit]) }
                ?? (newestOfKind, [.text(dog), .text(kind), limit])
            try query(statement, arguments) { row in
                order.append((row.real(2), row.integer(0), values.count))
                values.append(try make(row))
            }
        }
        guard kinds.count > 1 else { return values.reversed() }
        order.sort { ($0.at, $0.id) < ($1.at, $1.id) }
        return order.map { values[$0.index] }
    }
}

extension StoreReader {
    /// The newest `limit` records block `block` of `dog` kept (of `source`) recorded at or before
    /// `at`, oldest first: a check's earlier records, bounded whatever the block's history.
    public func earlierRecords(dog: String, block: String, source: String, at: Double, limit: Int) throws
        -> [ProfileRecord]
    {
        try rows(
            """
            SELECT \(ProfileRecord.columns) FROM profile_records
            WHERE dog_id = ? AND block_id = ? AND source = ? AND recorded_at <= ?
            ORDER BY recorded_at DESC, id DESC LIMIT ?
            """, [.text(dog), .text(block), .text(source), .real(at), .integer(Int64(max(limit, 0)))]
        ) { try ProfileRecord(row: $0, dog: dog) }.reversed()
    }
}
