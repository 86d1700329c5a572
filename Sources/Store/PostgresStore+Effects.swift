import Core

/// The engine's effects and the service's reminders and quarantine, in the shared SQL.
extension PostgresStore {
    public func records(dog: String, kind: String?) throws -> [ProfileRecord] {
        try rows(
            """
            SELECT \(ProfileRecord.columns)
            FROM profile_records WHERE dog_id = ?1 AND (?2::text IS NULL OR kind = ?2) ORDER BY recorded_at, id
            """, [.text(dog), .optional(kind)]
        ) { try ProfileRecord(row: $0, dog: dog) }
    }

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

    public func completeBlockStep(dog: String, block: String, step: String, at: Double, event: Int64?) throws -> Bool {
        try run(
            """
            INSERT INTO block_progress (dog_id, block_id, step, completed_at, event) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (dog_id, block_id, step) DO UPDATE SET completed_at = excluded.completed_at, event = excluded.event
            WHERE block_progress.completed_at > excluded.completed_at
            """, [.text(dog), .text(block), .text(step), .real(at), .optional(event)]) > 0
    }

    public func scheduleReminder(_ reminder: Reminder, event: Int64?) throws {
        try mergeReminder(reminder, event: event)
    }

    public func appendAnalytics(_ analytics: AnalyticsEvent, event: Int64?) throws {
        try runDeferred(
            "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)",
            [
                .text(analytics.userID), .text(analytics.name), .real(analytics.occurredAt),
                .text(JSON.object(analytics.properties).compactText), .optional(event),
            ])
    }

    public func grantReward(_ reward: Reward, event: Int64?) throws {
        try runDeferred(
            "INSERT INTO rewards (user_id, reward, amount, badge_id, reason, granted_at, event) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(reward.userID), .text(reward.reward), .optional(reward.amount), .optional(reward.badgeID),
                .optional(reward.reason), .real(reward.grantedAt), .optional(event),
            ])
    }

    // MARK: Service

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
}
