import HTTP

/// Computed view responses of one worker, served again while nothing they derive from changed:
/// the dog's data (its data version), the rules (revision), the quarantine — and for at most
/// ``ServiceConfiguration/viewCacheSeconds``, since time alone can change a view.
struct ViewCache {
    struct Entry {
        var version: Int64
        var revision: String
        var computedAt: Double
        var response: HTTPResponse
    }

    private var entries: [String: Entry] = [:]
    static let limit = 50_000

    func lookup(_ key: String, version: Int64, revision: String, now: Double, ttl: Double) -> HTTPResponse? {
        guard ttl > 0, let entry = entries[key], entry.version == version, entry.revision == revision,
            now - entry.computedAt < ttl, now >= entry.computedAt
        else { return nil }
        return entry.response
    }

    mutating func store(_ key: String, _ entry: Entry) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }
}
