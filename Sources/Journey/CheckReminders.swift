import Core
import Engine
import Store

/// "Remind me later" reminders of a block's check, cancelled once the check is done: a check
/// completed before the evening push must not bring that push.
extension StoreReader {
    /// The ids of `user`'s pending reminders for `dog` that lead back to `block` (their
    /// `payload.block_id`), leaving out the block's own return reminder (`returnKind`).
    func pendingReminders(user: String, dog: String, block: String, except returnKind: String?) throws -> [Int64] {
        var ids: [Int64] = []
        try query(
            "SELECT id, kind, payload FROM reminders WHERE user_id = ? AND status = 'pending' AND dog_id = ?",
            [.text(user), .text(dog)]
        ) { row in
            guard row.text(1) != returnKind, let text = row.text(2),
                (try? JSONParser().parse(text))?["block_id"]?.stringValue == block
            else { return }
            ids.append(row.integer(0))
        }
        return ids
    }
}

extension Store {
    /// Marks pending reminders `cancelled` (never due again); returns how many were pending.
    @discardableResult
    func cancelReminders(_ ids: [Int64]) throws -> Int {
        var cancelled = 0
        for id in ids {
            cancelled += try run(
                "UPDATE reminders SET status = 'cancelled' WHERE id = ? AND status = 'pending'", [.integer(id)])
        }
        return cancelled
    }
}

/// Pending "remind me later" reminders of a block were cancelled: its check is done.
public struct RemindersCancelledEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var ids: [Int64]

    public var typeName: String { "reminders_cancelled" }
    public var label: String { "reminders_cancelled(\(blockID))" }
    public var members: JSONObject {
        [
            "dog_id": .string(dogID), "block_id": .string(blockID),
            "reminder_ids": .array(ids.map { .number(Double($0)) }),
        ]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.cancelReminders(ids)
    }
}
