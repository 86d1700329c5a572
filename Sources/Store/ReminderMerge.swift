import Core

/// Whether a stored payload (its compact text) leads to a block (`leads_to`), in SQL: a quote
/// inside a JSON string is escaped, so the member's name with its quotes is only ever a key.
private func leadsSQL(_ column: String) -> String {
    "(CASE WHEN \(column) LIKE '%\"leads\\_to\":%' ESCAPE '\\' THEN 1 ELSE 0 END)"
}

/// The merge of a pending reminder into the pending one of its kind, built once (values
/// before the update: the new one `beats` the pending one, else it is its `runnerUp`, unless
/// it is the same one). One that leads to a block (a return reminder: "weigh Q again" → the
/// Progress review) outranks one that does not, whatever their due times; then the later due
/// time wins, then the greater payload.
private let mergeReminderSQL: String = {
    let leads = leadsSQL("payload")
    let runnerLeads = leadsSQL("runner_payload")
    let beats = "(?7 > \(leads) OR (?7 = \(leads) AND (?1 > due_at OR (?1 = due_at AND ?2 > payload))))"
    let runnerUp =
        "(NOT (?1 = due_at AND ?2 = payload) AND (runner_due IS NULL OR ?7 > \(runnerLeads) OR (?7 = \(runnerLeads) AND (?1 > runner_due OR (?1 = runner_due AND ?2 > runner_payload)))))"
    return """
        UPDATE reminders SET
            runner_due = CASE WHEN \(beats) THEN due_at WHEN \(runnerUp) THEN ?1 ELSE runner_due END,
            runner_payload = CASE WHEN \(beats) THEN payload WHEN \(runnerUp) THEN ?2 ELSE runner_payload END,
            payload = CASE WHEN \(beats) THEN ?2 ELSE payload END,
            event = CASE WHEN \(beats) THEN ?3 ELSE event END,
            due_at = CASE WHEN \(beats) THEN ?1 ELSE due_at END
        WHERE user_id = ?4 AND dog_id IS NOT DISTINCT FROM ?5 AND kind = ?6 AND status = 'pending'
        """
}()

/// The columns a reminder is inserted with (in ``Store/insertValues(_:event:)``'s order), and
/// the insert of one, written from them.
private let reminderColumns = ["user_id", "dog_id", "kind", "due_at", "payload", "status", "event"]
private let insertReminderSQL =
    "INSERT INTO reminders (\(reminderColumns.joined(separator: ", "))) VALUES ("
    + Array(repeating: "?", count: reminderColumns.count).joined(separator: ", ") + ")"

extension Reminder {
    /// Whether it leads to a block (`payload.leads_to`): a return reminder, which outranks
    /// the others of its kind.
    public var leadsToBlock: Bool { payload["leads_to"] != nil }

    /// Whether a reminder due at `due` with `payload` (compact text) outranks one due at
    /// `otherDue` with `otherPayload`: one leading to a block first, then the later due time,
    /// then the greater payload (as the store orders text).
    public static func outranks(
        due: Double, payload: String, leads: Bool, _ otherDue: Double, _ otherPayload: String, leads otherLeads: Bool
    ) -> Bool {
        if leads != otherLeads { return leads }
        return due > otherDue || (due == otherDue && payload > otherPayload)
    }

    /// Whether stored payload text leads to a block (as ``leadsToBlock``).
    static func leads(_ payloadText: String) -> Bool { payloadText.contains("\"leads_to\":") }
}

/// One pending reminder per user, dog and kind: one leading to a block wins, then the later
/// due time (at the same time, the greater payload), whatever order the events arrive in. The row also keeps the best of
/// the others (`runner_due`, `runner_payload`), so that a winner that moves sooner (a late
/// event completed its block sooner) gives way to it as in time order. One statement, on both
/// backends.
extension Store {
    /// Schedules `reminder` (asked for by the event in row `event`) against the pending one of
    /// its kind. One made `cancelled` (its reason passed before it arrived) is kept as it is.
    public func mergeReminder(_ reminder: Reminder, event: Int64?) throws {
        guard reminder.status == "pending" else { return try insertReminder(reminder, event: event) }
        try runDeferred(
            update: (mergeReminderSQL, Self.mergeValues(reminder, event: event)), elseInsertInto: "reminders",
            columns: reminderColumns, Self.insertValues(reminder, event: event))
    }

    /// Merges pending reminders of different kinds (or users, or dogs), each with the one
    /// merged after it of its kind (its `then`, when any), as ``mergeReminder(_:event:)`` would
    /// one after the other; nothing waits for an answer (``runDeferred(update:elseInsertInto:columns:_:)``).
    public func mergePendingReminders(
        _ merges: [(reminder: Reminder, event: Int64?, then: (reminder: Reminder, event: Int64?)?)]
    ) throws {
        for merge in merges {
            try mergeReminder(merge.reminder, event: merge.event)
            if let then = merge.then {
                // The first merge's row is there by now: an update alone.
                try runDeferred(mergeReminderSQL, Self.mergeValues(then.reminder, event: then.event))
            }
        }
    }

    private static func mergeValues(_ reminder: Reminder, event: Int64?) -> [SQLValue] {
        [
            .real(reminder.dueAt), .text(reminder.payload.compactText), event.map(SQLValue.integer) ?? .null,
            .text(reminder.userID), reminder.dogID.map(SQLValue.text) ?? .null, .text(reminder.kind),
            .integer(reminder.leadsToBlock ? 1 : 0),
        ]
    }

    private func insertReminder(_ reminder: Reminder, event: Int64?) throws {
        try runDeferred(insertReminderSQL, Self.insertValues(reminder, event: event))
    }

    private static func insertValues(_ reminder: Reminder, event: Int64?) -> [SQLValue] {
        [
            .text(reminder.userID), reminder.dogID.map(SQLValue.text) ?? .null, .text(reminder.kind),
            .real(reminder.dueAt), .text(reminder.payload.compactText), .text(reminder.status),
            event.map(SQLValue.integer) ?? .null,
        ]
    }

    /// Moves the pending reminder `id` to `due`: when its runner-up then beats it, the runner-up
    /// is pending (its event unknown) and the moved one its runner-up.
    public func movePendingReminder(_ id: Int64, to due: Double) throws {
        guard
            let (payload, runnerDue, runnerPayload) = try first(
                "SELECT payload, runner_due, runner_payload FROM reminders WHERE id = ? AND status = 'pending'",
                [.integer(id)], { ($0.text(0) ?? "", $0.isNull(1) ? nil : $0.real(1), $0.text(2)) })
        else { return }
        if let runnerDue, let runnerPayload,
            Reminder.outranks(
                due: runnerDue, payload: runnerPayload, leads: Reminder.leads(runnerPayload), due, payload,
                leads: Reminder.leads(payload))
        {
            _ = try run(
                """
                UPDATE reminders SET due_at = ?, payload = ?, event = NULL, runner_due = ?, runner_payload = ?
                WHERE id = ?
                """, [.real(runnerDue), .text(runnerPayload), .real(due), .text(payload), .integer(id)])
        } else {
            _ = try run("UPDATE reminders SET due_at = ? WHERE id = ?", [.real(due), .integer(id)])
        }
    }
}
