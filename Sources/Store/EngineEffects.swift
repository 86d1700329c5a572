import Core

/// The engine's own effects in the shared SQL: profile records, reminders, analytics and
/// rewards. Inserts nothing reads back at once are deferred (``Store/runDeferred(_:_:)``).
extension StoreReader {
    /// A dog's records, oldest first; of one kind, or all.
    public func records(dog: String, kind: String?) throws -> [ProfileRecord] {
        try rows(
            """
            SELECT \(ProfileRecord.columns) FROM profile_records
            WHERE dog_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR kind = ?2) ORDER BY recorded_at, id
            """, [.text(dog), .optional(kind)]
        ) { try ProfileRecord(row: $0, dog: dog) }
    }

    /// Pending reminders due at or before `before`, earliest first, at most `limit`.
    public func dueReminders(before: Double, limit: Int) throws -> [Reminder] {
        try rows(
            """
            SELECT id, user_id, dog_id, kind, due_at, payload, status FROM reminders
            WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id LIMIT ?
            """, [.real(before), .integer(Int64(limit))]
        ) { row in
            Reminder(
                id: row.integer(0), userID: row.text(1) ?? "", dogID: row.text(2), kind: row.text(3) ?? "",
                dueAt: row.real(4), payload: try StoredJSON.parse(row.text(5)), status: row.text(6) ?? "pending")
        }
    }
}

extension Store {
    /// Keeps a dated fact about a dog (asked for by the event in row `event`, if any).
    public func insertRecord(_ record: ProfileRecord, event: Int64?) throws {
        try runDeferred(
            """
            INSERT INTO profile_records
                (dog_id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id, event)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(record.dogID), .text(record.kind), .real(record.recordedAt), .text(record.recordedAtText),
                .text(record.payload.compactText), .text(record.source), .optional(record.ruleRevision),
                .optional(record.blockID), .optional(event),
            ])
    }

    /// Schedules a reminder; a pending one of the same user, dog and kind is kept once, due at
    /// the later of the two times (see ``mergeReminder(_:event:)``).
    public func scheduleReminder(_ reminder: Reminder, event: Int64?) throws {
        try mergeReminder(reminder, event: event)
    }

    /// Marks pending reminders sent; returns the ids that were pending (the others are ignored).
    public func markRemindersSent(_ ids: [Int64], at: Double) throws -> [Int64] {
        try transaction {
            var marked: [Int64] = []
            for id in Set(ids).sorted() {
                let changed = try run(
                    "UPDATE reminders SET status = 'sent', sent_at = ? WHERE id = ? AND status = 'pending'",
                    [.real(at), .integer(id)])
                if changed > 0 { marked.append(id) }
            }
            return marked
        }
    }

    /// Puts an analytics event in the outbox.
    public func appendAnalytics(_ analytics: AnalyticsEvent, event: Int64?) throws {
        try runDeferred(
            "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)",
            [
                .text(analytics.userID), .text(analytics.name), .real(analytics.occurredAt),
                .text(JSON.object(analytics.properties).compactText), .optional(event),
            ])
    }

    /// Gives a user a reward.
    public func grantReward(_ reward: Reward, event: Int64?) throws {
        try runDeferred(
            "INSERT INTO rewards (user_id, reward, amount, badge_id, reason, granted_at, event) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(reward.userID), .text(reward.reward), .optional(reward.amount), .optional(reward.badgeID),
                .optional(reward.reason), .real(reward.grantedAt), .optional(event),
            ])
    }
}
