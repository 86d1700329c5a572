import Store

/// The pending reminders a batch schedules, merged in memory and written when the batch ends
/// or before anything that may read or change reminders (``flush(to:)``).
///
/// The store keeps one pending reminder per user, dog and kind: the one that leads to a block,
/// else the latest due (its event with it), and the best of the others, its runner-up (``Store/mergeReminder(_:event:)``).
/// Of many reminders of a kind, only the two the store would keep can matter, so only those
/// two are merged into it — in the order their kinds first came, so that the rows and their
/// ids are those of merging each reminder in turn. Two different payloads due at the same
/// moment are ordered by the store (its collation), so such a reminder is merged there, as is
/// one that is not pending.
struct ReminderMerges {
    private struct Key: Hashable {
        var user: String
        var dog: String?
        var kind: String
    }

    private struct Scheduled {
        var reminder: Reminder
        var text: String
        var event: Int64?

        func isSame(_ other: Scheduled) -> Bool {
            reminder.dueAt == other.reminder.dueAt && text == other.text
        }

        /// As the store ranks them (``Reminder/outranks(due:payload:leads:_:_:leads:)``),
        /// ties of due time aside (the store's collation orders payloads).
        func outranks(_ other: Scheduled) -> Bool {
            let (leads, otherLeads) = (reminder.leadsToBlock, other.reminder.leadsToBlock)
            if leads != otherLeads { return leads }
            return reminder.dueAt > other.reminder.dueAt
        }
    }

    /// The winner and its runner-up of one kind.
    private struct Kept {
        var winner: Scheduled
        var runnerUp: Scheduled?
    }

    private var order: [Key] = []
    private var kept: [Key: Kept] = [:]

    /// Schedules `reminder`, asked for by the event in row `event`.
    mutating func add(_ reminder: Reminder, event: Int64?, to store: any Store) throws {
        guard reminder.status == "pending" else {
            try flush(to: store)
            return try store.scheduleReminder(reminder, event: event)
        }
        let key = Key(user: reminder.userID, dog: reminder.dogID, kind: reminder.kind)
        let new = Scheduled(reminder: reminder, text: reminder.payload.compactText, event: event)
        guard var entry = kept[key] else {
            order.append(key)
            kept[key] = Kept(winner: new)
            return
        }
        if isTie(new, entry.winner) || entry.runnerUp.map({ isTie(new, $0) }) == true {
            try flush(to: store)
            order.append(key)
            kept[key] = Kept(winner: new)
            return
        }
        if new.outranks(entry.winner) {
            entry.runnerUp = entry.winner
            entry.winner = new
        } else if !new.isSame(entry.winner), entry.runnerUp.map({ new.outranks($0) }) ?? true {
            entry.runnerUp = new
        } else {
            return
        }
        kept[key] = entry
    }

    /// Due at the same moment with another payload: which wins is the store's to say.
    private func isTie(_ new: Scheduled, _ held: Scheduled) -> Bool {
        new.reminder.dueAt == held.reminder.dueAt && new.text != held.text
            && new.reminder.leadsToBlock == held.reminder.leadsToBlock
    }

    /// Merges what is held into `store`, and forgets it: a key's winner, then its runner-up, key
    /// by key, the keys' rows being different ones (``Store/mergePendingReminders(_:)``).
    mutating func flush(to store: any Store) throws {
        guard !order.isEmpty else { return }
        let merges = order.compactMap { key in
            kept[key].map { entry in
                (
                    reminder: entry.winner.reminder, event: entry.winner.event,
                    then: entry.runnerUp.map { (reminder: $0.reminder, event: $0.event) }
                )
            }
        }
        order.removeAll(keepingCapacity: true)
        kept.removeAll(keepingCapacity: true)
        try store.mergePendingReminders(merges)
    }
}
