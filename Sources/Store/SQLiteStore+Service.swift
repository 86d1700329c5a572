import SQLite

extension SQLiteStore {
    public func dataVersion(dog: String) throws -> Int64 {
        try connection.prepare("SELECT id FROM events WHERE dog_id = ? ORDER BY id DESC LIMIT 1")
            .first([.text(dog)]) { $0.integer(0) } ?? 0
    }

    public func externalVersion() throws -> Int64 {
        try connection.prepare("PRAGMA data_version").first { $0.integer(0) } ?? 0
    }

    public func dueReminders(before: Double, limit: Int) throws -> [Reminder] {
        var reminders: [Reminder] = []
        try connection.prepare(
            """
            SELECT id, user_id, dog_id, kind, due_at, payload, status FROM reminders
            WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id LIMIT ?
            """
        ).query([.real(before), .integer(Int64(limit))]) { row in
            reminders.append(
                Reminder(
                    id: row.integer(0), userID: row.text(1) ?? "", dogID: row.text(2), kind: row.text(3) ?? "",
                    dueAt: row.real(4), payload: try Self.json(row.text(5)), status: row.text(6) ?? "pending"))
        }
        return reminders
    }

    public func markRemindersSent(_ ids: [Int64], at: Double) throws -> [Int64] {
        try transaction {
            var marked: [Int64] = []
            let statement = try connection.prepare(
                "UPDATE reminders SET status = 'sent', sent_at = ? WHERE id = ? AND status = 'pending'")
            for id in Set(ids).sorted() {
                try statement.run([.real(at), .integer(id)])
                if connection.changes > 0 { marked.append(id) }
            }
            return marked
        }
    }

    public func quarantine(_ record: QuarantineRecord) throws {
        try connection.run(
            """
            INSERT INTO rule_quarantine (rule_id, rule_digest, reason, input_digest, detail, quarantined_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rule_id, rule_digest) DO NOTHING
            """,
            [
                .text(record.ruleID), .text(record.ruleDigest), .text(record.reason), .optional(record.inputDigest),
                .text(record.detail), .real(record.quarantinedAt),
            ])
    }

    public func quarantineRecords() throws -> [QuarantineRecord] {
        var records: [QuarantineRecord] = []
        try connection.prepare(
            """
            SELECT rule_id, rule_digest, reason, input_digest, detail, quarantined_at FROM rule_quarantine
            ORDER BY quarantined_at DESC, rule_id
            """
        ).query { row in
            records.append(
                QuarantineRecord(
                    ruleID: row.text(0) ?? "", ruleDigest: row.text(1) ?? "", reason: row.text(2) ?? "",
                    inputDigest: row.text(3), detail: row.text(4) ?? "", quarantinedAt: row.real(5)))
        }
        return records
    }

    public func liftQuarantine(rule: String) throws -> Int {
        try connection.run("DELETE FROM rule_quarantine WHERE rule_id = ?", [.text(rule)])
        return connection.changes
    }
}

extension SQLiteStore: StoreAdministration, ChangeSignal {
    public var location: String { path }

    public func schemaVersion() throws -> Int {
        try connection.schemaVersion()
    }

    public func ping() throws {
        _ = try connection.scalar("SELECT 1")
    }
}
