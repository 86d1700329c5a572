import Core

extension StoredEvent {
    /// The columns ``init(latestRow:dog:)`` reads.
    public static let latestColumns = "id, user_id, event_id, type, occurred_at, occurred_at_text, received_at, payload"

    /// An event of `dog` from a row of ``latestColumns`` (its outcome is not read: null).
    init(latestRow row: any SQLRow, dog: String) throws {
        self.init(
            rowID: row.integer(0), userID: row.text(1) ?? "", eventID: row.text(2) ?? "", type: row.text(3) ?? "",
            dogID: dog, occurredAt: row.real(4), occurredAtText: row.text(5) ?? "", receivedAt: row.real(6),
            payload: try StoredJSON.parse(row.text(7)), outcome: .null)
    }
}

extension StoreReader {
    /// A dog's latest events (newest first), at most `limit`, each made by `make` from a row of
    /// ``StoredEvent/latestColumns`` (a rule's input built straight from the rows). With
    /// `types`, only the events of those types among the same `limit` latest are made (none
    /// read when `types` is empty): the window a rule reads does not move with what it keeps.
    /// With `since`, only those of the window that occurred at or after it (the newest `limit`
    /// since then are the same ones: the window is ordered by that time).
    public func latestEvents<T>(
        dog: String, limit: Int, types: Set<String>? = nil, since: Double? = nil, _ make: (any SQLRow) throws -> T
    ) throws -> [T] {
        if let types, types.isEmpty { return [] }
        let made: [T?] = try rows(
            """
            SELECT \(StoredEvent.latestColumns)
            FROM events WHERE dog_id = ?\(since == nil ? "" : " AND occurred_at >= ?")
            ORDER BY occurred_at DESC, id DESC LIMIT ?
            """, [.text(dog)] + (since.map { [SQLValue.real($0)] } ?? []) + [.integer(Int64(max(limit, 0)))]
        ) { row in
            if let types, !types.contains(row.text(3) ?? "") { return nil }
            return try make(row)
        }
        return made.compactMap { $0 }
    }
}

extension StoredEvent {
    /// The payload's text as its row keeps it.
    var payloadColumn: String { payloadText ?? payload.compactText }
    /// The outcome's text as its row keeps it.
    var outcomeColumn: String { outcomeText ?? outcome.compactText }
}
