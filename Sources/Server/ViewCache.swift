import HTTP

/// Computed view responses of one worker, served again while nothing they derive from changed:
/// the dog's data (its data version), the rules (revision), the quarantine — and for at most
/// ``ServiceConfiguration/viewCacheSeconds``, since time alone can change a view.
struct ViewCache {
    struct Entry {
        /// The dog's data version (its latest event's row id).
        var version: Int64
        /// The service's change counter of the dog, and the store's external version, when the
        /// entry was last known valid: while neither moved, nothing changed and no query is needed.
        var changes: UInt64
        var external: Int64
        var revision: String
        var computedAt: Double
        var response: HTTPResponse
    }

    private var entries: [String: Entry] = [:]
    static let limit = 50_000

    /// The entry under `key` if it is of `revision` and younger than `ttl`.
    func entry(_ key: String, revision: String, now: Double, ttl: Double) -> Entry? {
        guard ttl > 0, let entry = entries[key], entry.revision == revision, now - entry.computedAt < ttl,
            now >= entry.computedAt
        else { return nil }
        return entry
    }

    mutating func store(_ key: String, _ entry: Entry) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }
}
