import Synchronization

extension Message {
    /// `source` parsed, from a cache every thread shares (a text a view renders on every request
    /// is parsed once); nil when `source` is not a valid message (a text with a lone `{`).
    public static func parsed(_ source: String) -> Message? {
        if let cached = cache.withLock({ $0[source] }) { return cached }
        let message = try? Message(source)
        cache.withLock { entries in
            // Bounded: texts come from the rules, so the cache holds a revision's texts or two.
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[source] = .some(message)
        }
        return message
    }

    /// The most texts ``parsed(_:)`` keeps.
    static let cacheLimit = 4096
    private static let cache = Mutex<[String: Message?]>([:])
}
