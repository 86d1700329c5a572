import Core

/// Events in the shared SQL: what the ingest path keeps, and reads back for duplicates.
extension StoreReader {
    /// The accepted event `eventID` of `user`, if there is one.
    public func event(user: String, eventID: String) throws -> StoredEvent? {
        try first(
            """
            SELECT id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome, rule_revision,
                provenance
            FROM events WHERE user_id = ? AND event_id = ?
            """, [.text(user), .text(eventID)]
        ) { row in
            StoredEvent(
                rowID: row.integer(0), userID: user, eventID: eventID, type: row.text(1) ?? "", dogID: row.text(2),
                occurredAt: row.real(3), occurredAtText: row.text(4) ?? "", receivedAt: row.real(5),
                payload: try StoredJSON.parse(row.text(6)), outcome: try StoredJSON.parse(row.text(7)),
                ruleRevision: row.text(8), provenance: try row.text(9).map { try StoredJSON.parse($0) } ?? .null)
        }
    }

    /// How many events are kept.
    public func eventCount() throws -> Int {
        Int(try first("SELECT count(*) FROM events", []) { $0.integer(0) } ?? 0)
    }

    /// A dog's latest events (newest first), at most `limit`.
    public func events(dog: String, limit: Int) throws -> [StoredEvent] {
        try latestEvents(dog: dog, limit: limit) { try StoredEvent(latestRow: $0, dog: dog) }
    }
}

extension Store {
    /// Keeps an accepted event and its outcome; returns its row id.
    public func insertEvent(_ event: StoredEvent) throws -> Int64 {
        try insertRow(
            into: "events",
            """
            INSERT INTO events (id, user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload,
                outcome, rule_revision, provenance)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(event.userID), .text(event.eventID), .text(event.type), .optional(event.dogID),
                .real(event.occurredAt), .text(event.occurredAtText), .real(event.receivedAt),
                .text(event.payloadColumn), .text(event.outcomeColumn), .optional(event.ruleRevision),
                .optional(event.provenanceText ?? (event.provenance == .null ? nil : event.provenance.compactText)),
            ])
    }
}

/// Users and their dogs in the shared SQL.
extension StoreReader {
    /// The dog `id` as registered, if there is one.
    public func dog(_ id: String) throws -> DogProfile? {
        try first(
            "SELECT user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at FROM dogs WHERE dog_id = ?",
            [.text(id)]
        ) { row in try dogProfile(id, row, from: 0) }
    }

    /// The dogs of `ids` that are registered, by id: one query for up to 500 of them (one round
    /// trip on PostgreSQL), as a batch of events reads its dogs.
    public func dogs(_ ids: [String]) throws -> [String: DogProfile] {
        var found: [String: DogProfile] = [:]
        try inChunks(of: ids, sizes: [8, 64, 500]) { chunk, placeholders in
            try query(
                "SELECT dog_id, user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at FROM dogs WHERE dog_id IN (\(placeholders))",
                chunk.map { .text($0) }
            ) { row in
                let id = row.text(0) ?? ""
                found[id] = try dogProfile(id, row, from: 1)
            }
        }
        return found
    }

    /// A dog's profile from a row of `dogs`, its columns from `first` on.
    private func dogProfile(_ id: String, _ row: any SQLRow, from first: Int32) throws -> DogProfile {
        DogProfile(
            id: id, userID: row.text(first) ?? "", name: row.text(first + 1) ?? "", birthDate: row.text(first + 2),
            ageRange: row.text(first + 3), breed: row.text(first + 4), timezone: row.text(first + 5),
            metrics: try StoredJSON.parse(row.text(first + 6)).objectValue ?? [:], registeredAt: row.real(first + 7))
    }
}

extension Store {
    /// Records `user` the first time it is seen (deferred: sent with the next statement).
    public func ensureUser(_ user: String, firstSeenAt: Double) throws {
        try runDeferred(
            "INSERT INTO users (user_id, first_seen_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            [.text(user), .real(firstSeenAt)])
    }

    /// Registers a dog (once: a second one with the same id is an error, thrown by the next
    /// statement: the insert is deferred).
    public func insertDog(_ dog: DogProfile) throws {
        try runDeferred(
            """
            INSERT INTO dogs (dog_id, user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(dog.id), .text(dog.userID), .text(dog.name), .optional(dog.birthDate), .optional(dog.ageRange),
                .optional(dog.breed), .optional(dog.timezone), .text(JSON.object(dog.metrics).compactText),
                .real(dog.registeredAt),
            ])
    }
}
