import Core
import Store

/// A dog's journey map as built at registration (it is never rebuilt).
public struct StoredManifest: Sendable, Equatable {
    public var dogID: String
    /// The rule set it was built with.
    public var ruleRevision: String
    public var createdAt: Double
    public var manifest: JSON

    public init(dogID: String, ruleRevision: String, createdAt: Double, manifest: JSON) {
        self.dogID = dogID
        self.ruleRevision = ruleRevision
        self.createdAt = createdAt
        self.manifest = manifest
    }
}

/// A completed step of a journey block (`started`, `theory`, `check`, `action`).
public struct BlockStep: Sendable, Equatable {
    public var blockID: String
    public var step: String
    public var completedAt: Double

    public init(blockID: String, step: String, completedAt: Double) {
        self.blockID = blockID
        self.step = step
        self.completedAt = completedAt
    }
}

/// A dog's completed steps, in the order they were completed (a total order: ties of time by
/// block and step).
private let blockStepsSQL =
    "SELECT block_id, step, completed_at FROM block_progress WHERE dog_id = ? ORDER BY completed_at, block_id, step"

/// A step of a block done at a time, or at an earlier one than it was.
private let completeBlockStepSQL = """
    INSERT INTO block_progress (dog_id, block_id, step, completed_at, event) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (dog_id, block_id, step) DO UPDATE SET completed_at = excluded.completed_at, event = excluded.event
    WHERE block_progress.completed_at > excluded.completed_at
    """

/// The Dog Journey's rows, in the shared SQL: one manifest per dog, the catalogs manifests
/// were built from (by hash), and the completed steps of each dog's blocks.
extension StoreReader {
    /// A dog's manifest, if it has one.
    public func manifest(dog: String) throws -> StoredManifest? {
        try first("SELECT rule_revision, created_at, manifest FROM manifests WHERE dog_id = ?", [.text(dog)]) { row in
            StoredManifest(
                dogID: dog, ruleRevision: row.text(0) ?? "", createdAt: row.real(1),
                manifest: try StoredJSON.parse(row.text(2)))
        }
    }

    /// Whether catalog content is kept under `hash`.
    public func hasCatalogSnapshot(hash: String) throws -> Bool {
        try first("SELECT count(*) FROM catalog_snapshots WHERE hash = ?", [.text(hash)]) { $0.integer(0) } == 1
    }

    /// The catalog content kept under `hash`.
    public func catalogSnapshot(hash: String) throws -> JSON? {
        try first("SELECT catalog FROM catalog_snapshots WHERE hash = ?", [.text(hash)]) {
            try StoredJSON.parse($0.text(0))
        }
    }

    /// The completed steps of a dog's blocks, in the order they were completed (kept for the
    /// rest of a write transaction: an app event of the dog's reads them each time).
    public func blockSteps(dog: String) throws -> [BlockStep] {
        try keptRows(blockStepsSQL, [.text(dog)], table: "block_progress", keys: [("dog_id", .text(dog))], Self.step)
    }

    /// Reads the completed steps of all of `dogs` in one statement (per 100 dogs), kept for the
    /// rest of the write transaction as ``blockSteps(dog:)`` keeps a dog's: a batch's events then
    /// wait for none of them. Nothing outside a transaction.
    public func keepBlockSteps(dogs: [String]) throws {
        try keepRows(
            blockStepsSQL,
            batchSQL: """
                SELECT dog_id, block_id, step, completed_at FROM block_progress WHERE dog_id IN ({keys})
                ORDER BY dog_id, completed_at, block_id, step
                """, table: "block_progress", column: "dog_id", of: dogs, Self.step)
    }

    private static func step(_ row: any SQLRow) -> BlockStep {
        BlockStep(blockID: row.text(0) ?? "", step: row.text(1) ?? "", completedAt: row.real(2))
    }
}

extension Store {
    /// Keeps a dog's manifest (once: a second one for the same dog is an error, thrown by the
    /// next statement: the insert is deferred).
    public func insertManifest(_ manifest: StoredManifest) throws {
        try runDeferred(
            "INSERT INTO manifests (dog_id, rule_revision, created_at, manifest) VALUES (?, ?, ?, ?)",
            [
                .text(manifest.dogID), .text(manifest.ruleRevision), .real(manifest.createdAt),
                .text(manifest.manifest.compactText),
            ])
    }

    /// Keeps a catalog's content (JSON text) under its hash, once, dated by the earliest `at`.
    public func insertCatalogSnapshot(hash: String, text: String, at: Double) throws {
        try runDeferred(
            """
            INSERT INTO catalog_snapshots (hash, catalog, created_at) VALUES (?, ?, ?) ON CONFLICT (hash)
            DO UPDATE SET created_at = excluded.created_at WHERE catalog_snapshots.created_at > excluded.created_at
            """,
            [.text(hash), .text(text), .real(at)])
    }

    /// Marks a step of a block done at `at` (or earlier than it was: events arrive out of
    /// order); false when it already was, at that time or before.
    public func completeBlockStep(dog: String, block: String, step: String, at: Double, event: Int64?) throws -> Bool {
        try run(completeBlockStepSQL, [.text(dog), .text(block), .text(step), .real(at), .optional(event)]) > 0
    }

    /// Marks a step done as ``completeBlockStep(dog:block:step:at:event:)`` does, without
    /// waiting for the answer: the statement is deferred (its error is thrown by the next one).
    public func queueBlockStepCompletion(dog: String, block: String, step: String, at: Double, event: Int64?) throws {
        try runDeferred(completeBlockStepSQL, [.text(dog), .text(block), .text(step), .real(at), .optional(event)])
    }
}
