import Core

extension StoreReader {
    /// Every accepted event that occurred at or after `since`, in `occurred_at` order (ties by
    /// arrival), with its payload and stored outcome.
    public func events(since: Double) throws -> [StoredEvent] {
        try rows(
            """
            SELECT id, user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome
            FROM events WHERE occurred_at >= ? ORDER BY occurred_at, id
            """, [.real(since)]
        ) { row in
            StoredEvent(
                rowID: row.integer(0), userID: row.text(1) ?? "", eventID: row.text(2) ?? "", type: row.text(3) ?? "",
                dogID: row.text(4), occurredAt: row.real(5), occurredAtText: row.text(6) ?? "",
                receivedAt: row.real(7), payload: try JSONParser().parse(row.text(8) ?? "null"),
                outcome: try JSONParser().parse(row.text(9) ?? "null"))
        }
    }
}
