import Core
import Engine
import Store

/// "Remind me later" reminders of a block's check, cancelled once the check is done: a check
/// completed before the evening push must not bring that push.
extension StoreReader {
    /// The ids of `user`'s pending reminders for `dog` that lead back to `block` (their
    /// `payload.block_id`), leaving out the block's own return reminder (`returnKind`), asked
    /// for by events that happened before `time` (one asked for after the check was done,
    /// arriving first, stays).
    func pendingReminders(
        user: String, dog: String, block: String, except returnKind: String?, before time: Double
    ) throws -> [Int64] {
        var ids: [Int64] = []
        try query(
            """
            SELECT r.id, r.kind, r.payload FROM reminders r LEFT JOIN events e ON e.id = r.event
            WHERE r.user_id = ? AND r.status = 'pending' AND r.dog_id = ? AND (e.occurred_at IS NULL OR e.occurred_at <= ?)
            """,
            [.text(user), .text(dog), .real(time)]
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

/// Pending "remind me later" reminders of a block were cancelled: its check is done. The
/// result says how many (reminder ids are the store's row ids, which an event's outcome
/// does not show: they differ between stores).
public struct RemindersCancelledEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var ids: [Int64]

    public var typeName: String { "reminders_cancelled" }
    public var label: String { "reminders_cancelled(\(blockID))" }
    public var members: JSONObject {
        [
            "dog_id": .string(dogID), "block_id": .string(blockID),
            "count": .number(Double(ids.count)),
        ]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.cancelReminders(ids)
    }
}
