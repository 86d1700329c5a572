import Core
import Foundation
import JQ
import RuleEngine
import Store

/// Reads a dog's journey from the store: its manifest, the catalog content it refers to, and
/// its block steps. Catalog content is immutable under its hash, so it is read once per
/// process and kept.
public enum JourneyLoader {
    /// The dog's journey map, or nil when it has none (no catalog covered its age).
    /// Maps are immutable (a manifest is never rebuilt), so each is built once per store.
    public static func map(of dog: DogProfile, store: any StoreReader) throws -> JourneyMap? {
        try store.derivedCache.value("journey-map\u{0}" + dog.id) { () throws -> JourneyMap? in
            guard let manifest = try store.manifest(dog: dog.id) else { return nil }
            let hash = manifest.manifest["catalog_hash"]?.stringValue ?? ""
            let catalog = try SnapshotCache.shared.catalog(hash) { try store.catalogSnapshot(hash: hash) } ?? [:]
            return JourneyMap(dog: dog, manifest: manifest, catalog: catalog)
        }
    }

    /// The dog's journey now (with the recommendation), or nil when it has none.
    public static func state(of dog: DogProfile, store: any StoreReader, evaluator: RuleEvaluator, now: Double) throws
        -> JourneyState?
    {
        guard let map = try map(of: dog, store: store) else { return nil }
        return try JourneyState(map: map, steps: try store.blockSteps(dog: dog.id), evaluator: evaluator, now: now)
    }

    /// The dog's journey without the recommendation, from steps already read.
    static func state(of dog: DogProfile, steps: [BlockStep], store: any StoreReader) throws -> JourneyState? {
        guard let map = try map(of: dog, store: store) else { return nil }
        return JourneyState(map: map, steps: steps)
    }
}

/// Catalog snapshots by hash, shared by every thread.
///
/// `@unchecked Sendable`: `entries` is only touched with `lock` held; the values are
/// immutable `JSON`.
final class SnapshotCache: @unchecked Sendable {
    static let shared = SnapshotCache()
    private let lock = NSLock()
    private var entries: [String: JSON] = [:]

    func catalog(_ hash: String, load: () throws -> JSON?) throws -> JSON? {
        lock.lock()
        let cached = entries[hash]
        lock.unlock()
        if let cached { return cached }
        guard let loaded = try load() else { return nil }
        lock.lock()
        if entries.count > 64 { entries.removeAll() }
        entries[hash] = loaded
        lock.unlock()
        return loaded
    }
}
