import Core

/// Events, users, dogs and their journeys, in the shared SQL.
extension PostgresStore {
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

    /// Keeps the event under a row id of its own taken ahead (``nextEventID()``), sent with
    /// the next statement's round trip.
    public func insertEvent(_ event: StoredEvent) throws -> Int64 {
        let id = try nextEventID()
        try runDeferred(
            """
            INSERT INTO events (id, user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload,
                outcome, rule_revision, provenance)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(id), .text(event.userID), .text(event.eventID), .text(event.type), .optional(event.dogID),
                .real(event.occurredAt), .text(event.occurredAtText), .real(event.receivedAt),
                .text(event.payloadColumn), .text(event.outcomeColumn), .optional(event.ruleRevision),
                .optional(event.provenanceText ?? (event.provenance == .null ? nil : event.provenance.compactText)),
            ])
        return id
    }

    public func eventCount() throws -> Int {
        Int(try first("SELECT count(*) FROM events", []) { $0.integer(0) } ?? 0)
    }

    public func ensureUser(_ user: String, firstSeenAt: Double) throws {
        try run(
            "INSERT INTO users (user_id, first_seen_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            [.text(user), .real(firstSeenAt)])
    }

    public func dog(_ id: String) throws -> DogProfile? {
        try first(
            "SELECT user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at FROM dogs WHERE dog_id = ?",
            [.text(id)]
        ) { row in
            DogProfile(
                id: id, userID: row.text(0) ?? "", name: row.text(1) ?? "", birthDate: row.text(2),
                ageRange: row.text(3), breed: row.text(4), timezone: row.text(5),
                metrics: try StoredJSON.parse(row.text(6)).objectValue ?? [:], registeredAt: row.real(7))
        }
    }

    public func insertDog(_ dog: DogProfile) throws {
        try run(
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

    public func insertManifest(_ manifest: StoredManifest) throws {
        try run(
            "INSERT INTO manifests (dog_id, rule_revision, created_at, manifest) VALUES (?, ?, ?, ?)",
            [
                .text(manifest.dogID), .text(manifest.ruleRevision), .real(manifest.createdAt),
                .text(manifest.manifest.compactText),
            ])
    }

    public func manifest(dog: String) throws -> StoredManifest? {
        try first("SELECT rule_revision, created_at, manifest FROM manifests WHERE dog_id = ?", [.text(dog)]) { row in
            StoredManifest(
                dogID: dog, ruleRevision: row.text(0) ?? "", createdAt: row.real(1),
                manifest: try StoredJSON.parse(row.text(2)))
        }
    }

    public func insertCatalogSnapshot(hash: String, text: String, at: Double) throws {
        try run(
            """
            INSERT INTO catalog_snapshots (hash, catalog, created_at) VALUES (?, ?, ?) ON CONFLICT (hash)
            DO UPDATE SET created_at = excluded.created_at WHERE catalog_snapshots.created_at > excluded.created_at
            """,
            [.text(hash), .text(text), .real(at)])
    }

    public func hasCatalogSnapshot(hash: String) throws -> Bool {
        try first("SELECT count(*) FROM catalog_snapshots WHERE hash = ?", [.text(hash)]) { $0.integer(0) } == 1
    }

    public func catalogSnapshot(hash: String) throws -> JSON? {
        try first("SELECT catalog FROM catalog_snapshots WHERE hash = ?", [.text(hash)]) {
            try StoredJSON.parse($0.text(0))
        }
    }

    public func blockSteps(dog: String) throws -> [BlockStep] {
        try rows(
            "SELECT block_id, step, completed_at FROM block_progress WHERE dog_id = ? ORDER BY completed_at",
            [.text(dog)]
        ) { row in
            BlockStep(blockID: row.text(0) ?? "", step: row.text(1) ?? "", completedAt: row.real(2))
        }
    }

    public func events(dog: String, limit: Int) throws -> [StoredEvent] {
        try latestEvents(dog: dog, limit: limit) { try StoredEvent(latestRow: $0, dog: dog) }
    }

    /// The dog's latest event row id plus its number of events (0 for none). Row ids are
    /// handed out before commit, so on a shared server an event with a smaller id can commit
    /// after a larger one: the count makes every insert change the number all the same.
    public func dataVersion(dog: String) throws -> Int64 {
        try first("SELECT coalesce(max(id), 0) + count(*) FROM events WHERE dog_id = ?", [.text(dog)]) {
            $0.integer(0)
        } ?? 0
    }
}

/// A PostgreSQL store that could not do what was asked: where, and what went wrong.
public struct PostgresStoreError: Error, CustomStringConvertible {
    public var location: String
    public var problem: String
    public var description: String { "PostgreSQL store \(location): \(problem)" }
}
