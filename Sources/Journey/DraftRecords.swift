import Core
import Engine
import Store

/// Records an answer keeps before its check is complete (a predict's guess alone) are drafts:
/// the answer that completes the check replaces those of its kinds with the complete ones
/// (the guess-and-measurement pair), so the profile holds one record per check.
public struct DraftRecordsReplacedEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    /// The draft records' row ids (stores differ: an event's outcome shows only how many).
    public var ids: [Int64]

    public var typeName: String { "draft_records_replaced" }
    public var label: String { "draft_records_replaced(\(blockID))" }
    public var members: JSONObject {
        ["dog_id": .string(dogID), "block_id": .string(blockID), "count": .number(Double(ids.count))]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        for id in ids {
            _ = try store.run("DELETE FROM profile_records WHERE id = ? AND dog_id = ?", [.integer(id), .text(dogID)])
        }
    }
}
