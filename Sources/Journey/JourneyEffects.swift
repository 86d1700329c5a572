import Core
import Engine
import Store

/// A step (`theory`, `check`, `action`) of a journey block was completed.
public struct BlockStepCompletedEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var step: String
    /// When (nil: when the event happened; an action an earlier stored app event did: then).
    public var at: Double? = nil

    public var typeName: String { "block_step_completed" }
    public var label: String { "block_step_completed(\(blockID)/\(step))" }
    public var members: JSONObject {
        var members: JSONObject = ["dog_id": .string(dogID), "block_id": .string(blockID), "step": .string(step)]
        if let at { members["completed_at"] = .string(Timestamp.format(at)) }
        return members
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.queueBlockStepCompletion(
            dog: dogID, block: blockID, step: step, at: at ?? event.occurredAt, event: eventRow)
    }

    /// Rules may complete a block's step: `{type: block_step_completed, block_id, step, dog_id?}`.
    static let type = EffectType("block_step_completed") { fields, event, _ throws(FieldError) in
        let dog = try fields.optionalString("dog_id") ?? event.dogID
        guard let dog else {
            throw fields.fail("dog_id", .missing, "is required (the event has none)")
        }
        let block = try fields.string("block_id")
        let step = try fields.string("step")
        guard ["theory", "check", "action"].contains(step) else {
            throw fields.fail("step", .invalid, "must be theory, check or action, got \"\(step)\"")
        }
        try fields.finish()
        return BlockStepCompletedEffect(dogID: dog, blockID: block, step: step).effect
    }
}

/// A dog's journey map was built (at registration); `catalogText` is the content it refers
/// to, kept once under `catalogHash`.
public struct ManifestCreatedEffect: FeatureEffect, Equatable {
    public var manifest: StoredManifest
    public var catalogHash: String
    public var catalogText: String

    public var typeName: String { "manifest_created" }
    public var label: String { "manifest_created(\(manifest.dogID))" }
    public var members: JSONObject {
        [
            "dog_id": .string(manifest.dogID), "catalog": manifest.manifest["catalog"] ?? .null,
            "catalog_hash": .string(catalogHash), "recommended_first": manifest.manifest["recommended_first"] ?? .null,
            "insights": manifest.manifest["insights"] ?? .array([]), "notes": manifest.manifest["notes"] ?? .array([]),
        ]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        // Kept once per catalog, dated by the earliest registration that used it.
        try store.insertCatalogSnapshot(hash: catalogHash, text: catalogText, at: event.occurredAt)
        try store.insertManifest(manifest)
    }
}

/// A check was answered: what to tell the user, and whether the check step is done.
public struct CheckAnsweredEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var checkType: String
    /// The plugin's interpretation: a text, or a locale text's key with its arguments
    /// (``DeferredText``), which the answer to the app writes in its reader's locale.
    public var interpretation: JSON?
    public var complete: Bool
    /// The line the result carries with the interpretation: a hands_on check on a health
    /// topic says "This check does not replace a vet."
    public var caption: String? = nil

    public var typeName: String { "check_answered" }
    public var label: String { "check_answered(\(blockID)/\(checkType)\(complete ? "" : ", open"))" }
    public var members: JSONObject {
        var members: JSONObject = [
            "dog_id": .string(dogID), "block_id": .string(blockID), "check_type": .string(checkType),
            "interpretation": interpretation ?? .null, "complete": .bool(complete),
        ]
        if let caption { members["caption"] = .string(caption) }
        return members
    }

    /// What the user is told; the block's status comes from its steps.
    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {}
}

/// A journey block was completed: what the result screen shows. `changes` is what changed
/// (records added, course started), `nextBlock` the one block offered next and `nextReason`
/// why (`unlocked` by this completion, or `recommended`), `returnReminder` the reminder
/// scheduled for the return, if the block has one.
public struct BlockCompletedEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var nextBlock: String?
    public var nextReason: String?
    public var changes: [JSON] = []
    public var returnReminder: JSON?

    public var typeName: String { "block_completed" }
    public var label: String { "block_completed(\(blockID)\(nextBlock.map { " → \($0)" } ?? ""))" }
    public var members: JSONObject {
        [
            "dog_id": .string(dogID), "block_id": .string(blockID), "changed": .array(changes),
            "next_block": nextBlock.map(JSON.string) ?? .null, "next_reason": nextReason.map(JSON.string) ?? .null,
            "return_reminder": returnReminder ?? .null,
        ]
    }

    /// What the user is told; the block's status comes from its steps.
    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {}
}

extension Effect {
    static func blockStepCompleted(dogID: String, blockID: String, step: String, at: Double? = nil) -> Effect {
        BlockStepCompletedEffect(dogID: dogID, blockID: blockID, step: step, at: at).effect
    }
    static func manifestCreated(_ manifest: StoredManifest, catalogHash: String, catalogText: String) -> Effect {
        ManifestCreatedEffect(manifest: manifest, catalogHash: catalogHash, catalogText: catalogText).effect
    }
    static func checkAnswered(
        dogID: String, blockID: String, checkType: String, interpretation: JSON?, complete: Bool,
        caption: String? = nil
    )
        -> Effect
    {
        CheckAnsweredEffect(
            dogID: dogID, blockID: blockID, checkType: checkType, interpretation: interpretation, complete: complete,
            caption: caption
        ).effect
    }
    static func blockCompleted(_ completed: BlockCompletedEffect) -> Effect {
        completed.effect
    }
}

extension JourneyFeature {
    /// Rules may complete block steps; the rest only the journey makes.
    public var effectTypes: [EffectType] {
        [
            BlockStepCompletedEffect.type, EffectType("manifest_created", madeBy: "the Dog Journey"),
            EffectType("check_answered", madeBy: "the Dog Journey"),
            EffectType("block_completed", madeBy: "the Dog Journey"),
            EffectType("reminders_cancelled", madeBy: "the Dog Journey"),
        ]
    }
}
