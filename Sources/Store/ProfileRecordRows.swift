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

extension StoreReader {
    /// The newest `perKind` records of each kind of `dog`, oldest first (ties by id): the window
    /// a rule sees, read in one query whatever the dog's history (both backends have window
    /// functions).
    public func newestRecords(dog: String, perKind: Int) throws -> [ProfileRecord] {
        try rows(
            """
            SELECT \(ProfileRecord.columns) FROM (
                SELECT \(ProfileRecord.columns),
                    ROW_NUMBER() OVER (PARTITION BY kind ORDER BY recorded_at DESC, id DESC) AS newest
                FROM profile_records WHERE dog_id = ?
            ) AS windowed
            WHERE newest <= ? ORDER BY recorded_at, id
            """, [.text(dog), .integer(Int64(max(perKind, 0)))]
        ) { try ProfileRecord(row: $0, dog: dog) }
    }
}
