import Core

extension StoreReader {
    /// Which of `eventIDs` of `user` are stored: one query per 64 ids (the ids padded to a
    /// fixed number of placeholders, so that a backend prepares few statements), where
    /// asking for each event would take one each.
    public func storedEventIDs(user: String, among eventIDs: [String]) throws -> Set<String> {
        var found: Set<String> = []
        var start = 0
        while start < eventIDs.count {
            var chunk = Array(eventIDs[start..<min(start + Self.eventIDChunk, eventIDs.count)])
            start += Self.eventIDChunk
            let size = chunk.count <= 8 ? 8 : Self.eventIDChunk
            chunk += repeatElement(chunk[0], count: size - chunk.count)
            let placeholders = Array(repeating: "?", count: size).joined(separator: ", ")
            try query(
                "SELECT event_id FROM events WHERE user_id = ? AND event_id IN (\(placeholders))",
                [.text(user)] + chunk.map(SQLValue.text)
            ) { found.insert($0.text(0) ?? "") }
        }
        return found
    }

    private static var eventIDChunk: Int { 64 }
}
