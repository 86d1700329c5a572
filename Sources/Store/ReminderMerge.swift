import Core

/// One pending reminder per user, dog and kind: the later due time wins (at the same time,
/// the greater payload), whatever order the events arrive in. The best of the others is kept
/// as `superseded`, so that a winner that moves sooner (a late event completed its block
/// sooner) gives way to it as in time order. Both backends schedule reminders through this.
extension Store {
    /// Schedules `reminder` (asked for by the event in row `event`) against the pending one of
    /// its kind. One made `cancelled` (its reason passed before it arrived) is kept as it is.
    public func mergeReminder(_ reminder: Reminder, event: Int64?) throws {
        guard reminder.status == "pending" else {
            return try insertReminder(reminder, status: reminder.status, event: event)
        }
        let kept = try competingReminders(user: reminder.userID, dog: reminder.dogID, kind: reminder.kind)
        let new = ReminderRank(due: reminder.dueAt, payload: reminder.payload.compactText)
        guard let pending = kept.first(where: \.pending) else {
            // Runners-up of a reminder sent or cancelled since compete no more.
            for row in kept { _ = try run("DELETE FROM reminders WHERE id = ?", [.integer(row.id)]) }
            return try insertReminder(reminder, status: "pending", event: event)
        }
        let runnerUp = kept.first { !$0.pending }
        if new.beats(pending.rank) {
            if let runnerUp { _ = try run("DELETE FROM reminders WHERE id = ?", [.integer(runnerUp.id)]) }
            _ = try run("UPDATE reminders SET status = 'superseded' WHERE id = ?", [.integer(pending.id)])
            try insertReminder(reminder, status: "pending", event: event)
        } else if runnerUp.map({ new.beats($0.rank) }) ?? true {
            if let runnerUp { _ = try run("DELETE FROM reminders WHERE id = ?", [.integer(runnerUp.id)]) }
            try insertReminder(reminder, status: "superseded", event: event)
        }
    }

    /// After a reminder of this kind moved: the best of the pending one and its runner-up is
    /// pending, the other superseded.
    public func reelectReminder(user: String, dog: String?, kind: String) throws {
        let kept = try competingReminders(user: user, dog: dog, kind: kind)
        guard kept.count > 1, let best = kept.max(by: { $1.rank.beats($0.rank) }) else { return }
        for row in kept {
            _ = try run(
                "UPDATE reminders SET status = ? WHERE id = ?",
                [.text(row.id == best.id ? "pending" : "superseded"), .integer(row.id)])
        }
    }

    private func competingReminders(user: String, dog: String?, kind: String) throws -> [CompetingReminder] {
        var rows: [CompetingReminder] = []
        try query(
            """
            SELECT id, due_at, payload, status FROM reminders
            WHERE user_id = ? AND dog_id IS NOT DISTINCT FROM ? AND kind = ? AND status IN ('pending', 'superseded')
            """, [.text(user), dog.map(SQLValue.text) ?? .null, .text(kind)]
        ) { row in
            rows.append(
                CompetingReminder(
                    id: row.integer(0), rank: ReminderRank(due: row.real(1), payload: row.text(2) ?? ""),
                    pending: row.text(3) == "pending"))
        }
        return rows
    }

    private func insertReminder(_ reminder: Reminder, status: String, event: Int64?) throws {
        _ = try run(
            "INSERT INTO reminders (user_id, dog_id, kind, due_at, payload, status, event) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(reminder.userID), reminder.dogID.map(SQLValue.text) ?? .null, .text(reminder.kind),
                .real(reminder.dueAt), .text(reminder.payload.compactText), .text(status),
                event.map(SQLValue.integer) ?? .null,
            ])
    }
}

/// How reminders of one kind compare: the later due time, then the greater payload text.
private struct ReminderRank {
    var due: Double
    var payload: String

    func beats(_ other: ReminderRank) -> Bool { due > other.due || (due == other.due && payload > other.payload) }
}

private struct CompetingReminder {
    var id: Int64
    var rank: ReminderRank
    var pending: Bool
}
