import Core

/// One analytics event waiting in the outbox (or sent), with its outbox id.
public struct OutboxAnalytics: Sendable, Equatable {
    public var id: Int64
    public var event: AnalyticsEvent
    public var sentAt: Double?

    /// `{id, user_id, name, occurred_at, properties}`: what the analytics pipeline receives.
    public var json: JSON {
        [
            "id": .number(Double(id)), "user_id": .string(event.userID), "name": .string(event.name),
            "occurred_at": .string(Timestamp.format(event.occurredAt)), "properties": .object(event.properties),
        ]
    }
}

/// The analytics outbox as the app's analytics pipeline drains it: read what is not sent yet,
/// oldest first, then mark those ids sent. An id is marked once, so a pipeline that marks
/// what it delivered (and delivers again what it could not mark) gets each event once.
extension StoreReader {
    /// Up to `limit` unsent analytics events in outbox order (after `afterID`, and occurred
    /// at or after `since`, when given).
    public func pendingAnalytics(limit: Int, afterID: Int64? = nil, since: Double? = nil) throws -> [OutboxAnalytics] {
        var conditions = ["sent_at IS NULL"]
        var values: [SQLValue] = []
        if let afterID {
            conditions.append("id > ?")
            values.append(.integer(afterID))
        }
        if let since {
            conditions.append("occurred_at >= ?")
            values.append(.real(since))
        }
        return try rows(
            """
            SELECT id, user_id, name, occurred_at, properties FROM analytics_outbox
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY id LIMIT ?
            """, values + [.integer(Int64(limit))]
        ) { row in
            guard case .object(let properties) = try StoredJSON.parse(row.text(4)) else {
                throw OutboxError(id: row.integer(0))
            }
            return OutboxAnalytics(
                id: row.integer(0),
                event: AnalyticsEvent(
                    userID: row.text(1) ?? "", name: row.text(2) ?? "", occurredAt: row.real(3), properties: properties),
                sentAt: nil)
        }
    }
}

/// An outbox row whose properties are not a JSON object.
public struct OutboxError: Error, CustomStringConvertible {
    public var id: Int64
    public var description: String { "analytics_outbox row \(id): properties are not a JSON object" }
}

extension Store {
    /// Marks the analytics events `ids` sent at `at`; returns those marked now (an unknown id,
    /// or one sent already, is not).
    public func markAnalyticsSent(_ ids: [Int64], at: Double) throws -> [Int64] {
        let unique = Array(Set(ids)).sorted()
        guard !unique.isEmpty else { return [] }
        return try transaction {
            try rows(
                """
                UPDATE analytics_outbox SET sent_at = ?
                WHERE sent_at IS NULL AND id IN (\(unique.map { _ in "?" }.joined(separator: ", "))) RETURNING id
                """, [.real(at)] + unique.map(SQLValue.integer)
            ) { $0.integer(0) }.sorted()
        }
    }
}
