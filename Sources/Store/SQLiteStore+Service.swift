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
