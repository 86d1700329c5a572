import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// Reads a dog's journey from the store: its manifest, the catalog content it refers to, and
/// its block steps. Catalog content is immutable under its hash, so it is read once per
/// process and kept.
public enum JourneyLoader {
    /// The dog's journey map with the catalog's texts in `locale` (the default locale when nil)
    /// from `ruleSet`'s locale files, or nil when it has none (no catalog covered its age).
    /// Maps are immutable (a manifest is never rebuilt), so each is built once per store, rule
    /// revision and locale.
    public static func map(of dog: DogProfile, store: any StoreReader, ruleSet: RuleSet, locale: String? = nil) throws
        -> JourneyMap?
    {
        let texts = ruleSet.texts
        let locale = locale.flatMap { texts.supports($0) ? $0 : nil } ?? texts.defaultLocale
        let key = "journey-map\u{0}\(ruleSet.revision)\u{0}\(locale)\u{0}\(dog.id)"
        return try store.derivedCache.value(key) { () throws -> JourneyMap? in
            guard let manifest = try store.manifest(dog: dog.id) else { return nil }
            let hash = manifest.manifest["catalog_hash"]?.stringValue ?? ""
            let localized = try SnapshotCache.shared.catalog("\(hash)\u{0}\(ruleSet.revision)\u{0}\(locale)") {
                guard
                    let catalog = try SnapshotCache.shared.catalog(
                        hash, load: { try store.catalogSnapshot(hash: hash) })
                else { return nil }
                return CatalogTexts.localized(catalog, texts: texts, locale: locale)
            }
            return JourneyMap(
                dog: dog, manifest: manifest, catalog: localized ?? [:],
                texts: RequestTexts(locale: locale, source: "map", catalog: texts))
        }
    }

    /// The dog's journey now (with the recommendation) in `locale`, or nil when it has none.
    public static func state(
        of dog: DogProfile, store: any StoreReader, evaluator: RuleEvaluator, now: Double, locale: String? = nil
    ) throws -> JourneyState? {
        guard let map = try map(of: dog, store: store, ruleSet: evaluator.ruleSet, locale: locale) else { return nil }
        return try JourneyState(map: map, steps: try store.blockSteps(dog: dog.id), evaluator: evaluator, now: now)
    }

    /// The dog's journey without the recommendation, from steps already read.
    static func state(
        of dog: DogProfile, steps: [BlockStep], store: any StoreReader, ruleSet: RuleSet, locale: String? = nil
    ) throws -> JourneyState? {
        guard let map = try map(of: dog, store: store, ruleSet: ruleSet, locale: locale) else { return nil }
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
