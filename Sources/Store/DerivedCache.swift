/// Values a store's user derives from rows that never change once committed (a dog's journey
/// map: its manifest is never rebuilt, its catalog is kept by hash), or that carry the versions
/// of the rows they were read from (a user's check-in days, tracker by tracker), kept beside
/// the store for the one thread that uses it. The store empties it when a transaction or unit
/// rolls back, so nothing derived from undone rows survives.
///
/// Not `Sendable`: it belongs to its store's thread.
public final class DerivedCache {
    private var values: [String: Any] = [:]
    /// Most values kept; past it the cache starts over.
    public let limit: Int

    public init(limit: Int = 20_000) {
        self.limit = limit
    }

    /// The value under `key`, made (and kept) on first use; nil results are not kept.
    public func value<T>(_ key: String, make: () throws -> T?) rethrows -> T? {
        if let value = kept(key, as: T.self) { return value }
        guard let made = try make() else { return nil }
        replace(key, with: made)
        return made
    }

    /// Keeps `value` under `key` in place of what was there: for a value that says itself
    /// which rows it reflects (the versions it was read at), checked by whoever reads it.
    public func replace<T>(_ key: String, with value: T) {
        if values[key] == nil, values.count >= limit { values.removeAll(keepingCapacity: true) }
        values[key] = value
    }

    /// The value under `key`, if one of type `T` is kept.
    public func kept<T>(_ key: String, as type: T.Type = T.self) -> T? {
        values[key] as? T
    }

    /// Forgets everything.
    public func removeAll() {
        values.removeAll(keepingCapacity: true)
    }
}
