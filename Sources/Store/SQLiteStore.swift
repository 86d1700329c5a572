import Core
import Foundation
import SQLite

/// The embedded store: one SQLite file (`journey.sqlite` unless told otherwise), in WAL mode.
///
/// Not `Sendable`: it owns a connection. One owner (the ingest path, a request handler)
/// uses it at a time.
public final class SQLiteStore: Store {
    public let connection: Connection
    public var path: String { connection.path }
    public let derivedCache = DerivedCache()

    /// The default file name in the working directory.
    public static let defaultPath = "journey.sqlite"

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String = SQLiteStore.defaultPath, migrate: Bool = true) throws {
        connection = try Connection(path: path)
        if migrate { try self.migrate() }
    }

    /// Applies pending migrations; returns the versions applied.
    @discardableResult
    public func migrate() throws -> [Int] {
        try connection.migrate(Schema.migrations, now: Date().timeIntervalSince1970)
    }

    /// The schema version the code knows.
    public static var latestSchemaVersion: Int { Schema.migrations.map(\.version).max() ?? 0 }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.transaction(body)
        } catch {
            derivedCache.removeAll()
            throw error
        }
    }

    public func atomically<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.savepoint("event", body)
        } catch {
            derivedCache.removeAll()
            throw error
        }
    }

    // MARK: Events

    public func event(user: String, eventID: String) throws -> StoredEvent? {
        try connection.prepare(
            """
            SELECT id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome, rule_revision,
                provenance
            FROM events WHERE user_id = ? AND event_id = ?
            """
        ).first([.text(user), .text(eventID)]) { row in
            StoredEvent(
                rowID: row.integer(0), userID: user, eventID: eventID, type: row.text(1) ?? "", dogID: row.text(2),
                occurredAt: row.real(3), occurredAtText: row.text(4) ?? "", receivedAt: row.real(5),
                payload: try Self.json(row.text(6)), outcome: try Self.json(row.text(7)), ruleRevision: row.text(8),
                provenance: try row.text(9).map { try Self.json($0) } ?? .null)
        }
    }

    public func insertEvent(_ event: StoredEvent) throws -> Int64 {
        try connection.run(
            """
            INSERT INTO events (user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome,
                rule_revision, provenance)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(event.userID), .text(event.eventID), .text(event.type), .optional(event.dogID),
                .real(event.occurredAt), .text(event.occurredAtText), .real(event.receivedAt),
                .text(event.payloadColumn), .text(event.outcomeColumn), .optional(event.ruleRevision),
                .optional(event.provenanceText ?? (event.provenance == .null ? nil : event.provenance.compactText)),
            ])
        return connection.lastInsertedRowID
    }

    public func eventCount() throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM events") ?? 0)
    }

    // MARK: Users and dogs

    public func ensureUser(_ user: String, firstSeenAt: Double) throws {
        try connection.run(
            "INSERT INTO users (user_id, first_seen_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            [.text(user), .real(firstSeenAt)])
    }

    public func dog(_ id: String) throws -> DogProfile? {
        try connection.prepare(
            "SELECT user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at FROM dogs WHERE dog_id = ?"
        ).first([.text(id)]) { row in
            DogProfile(
                id: id, userID: row.text(0) ?? "", name: row.text(1) ?? "", birthDate: row.text(2),
                ageRange: row.text(3), breed: row.text(4), timezone: row.text(5),
                metrics: try Self.json(row.text(6)).objectValue ?? [:], registeredAt: row.real(7))
        }
    }

    public func insertDog(_ dog: DogProfile) throws {
        try connection.run(
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

    // MARK: Journey

    public func insertManifest(_ manifest: StoredManifest) throws {
        try connection.run(
            "INSERT INTO manifests (dog_id, rule_revision, created_at, manifest) VALUES (?, ?, ?, ?)",
            [
                .text(manifest.dogID), .text(manifest.ruleRevision), .real(manifest.createdAt),
                .text(manifest.manifest.compactText),
            ])
    }

    public func manifest(dog: String) throws -> StoredManifest? {
        try connection.prepare("SELECT rule_revision, created_at, manifest FROM manifests WHERE dog_id = ?")
            .first([.text(dog)]) { row in
                StoredManifest(
                    dogID: dog, ruleRevision: row.text(0) ?? "", createdAt: row.real(1),
                    manifest: try Self.json(row.text(2)))
            }
    }

    public func insertCatalogSnapshot(hash: String, text: String, at: Double) throws {
        try connection.run(
            """
            INSERT INTO catalog_snapshots (hash, catalog, created_at) VALUES (?, ?, ?) ON CONFLICT (hash)
            DO UPDATE SET created_at = excluded.created_at WHERE catalog_snapshots.created_at > excluded.created_at
            """,
            [.text(hash), .text(text), .real(at)])
    }

    public func hasCatalogSnapshot(hash: String) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM catalog_snapshots WHERE hash = ?", [.text(hash)]) == 1
    }

    public func catalogSnapshot(hash: String) throws -> JSON? {
        try connection.prepare("SELECT catalog FROM catalog_snapshots WHERE hash = ?").first([.text(hash)]) {
            try Self.json($0.text(0))
        }
    }

    public func blockSteps(dog: String) throws -> [BlockStep] {
        var steps: [BlockStep] = []
        try connection.prepare(
            "SELECT block_id, step, completed_at FROM block_progress WHERE dog_id = ? ORDER BY completed_at"
        )
        .query([.text(dog)]) { row in
            steps.append(BlockStep(blockID: row.text(0) ?? "", step: row.text(1) ?? "", completedAt: row.real(2)))
        }
        return steps
    }

    public func events(dog: String, limit: Int) throws -> [StoredEvent] {
        try latestEvents(dog: dog, limit: limit) { try StoredEvent(latestRow: $0, dog: dog) }
    }

    // MARK: Effects

    public func records(dog: String, kind: String?) throws -> [ProfileRecord] {
        var records: [ProfileRecord] = []
        let sql = """
            SELECT \(ProfileRecord.columns)
            FROM profile_records WHERE dog_id = ?1 AND (?2 IS NULL OR kind = ?2) ORDER BY recorded_at, id
            """
        try connection.prepare(sql).query([.text(dog), .optional(kind)]) { row in
            records.append(try ProfileRecord(row: row, dog: dog))
        }
        return records
    }

    public func insertRecord(_ record: ProfileRecord, event: Int64?) throws {
        try connection.run(
            """
            INSERT INTO profile_records
                (dog_id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id, event)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(record.dogID), .text(record.kind), .real(record.recordedAt), .text(record.recordedAtText),
                .text(record.payload.compactText), .text(record.source), .optional(record.ruleRevision),
                .optional(record.blockID), event.map(SQLiteValue.integer) ?? .null,
            ])
    }

    public func completeBlockStep(dog: String, block: String, step: String, at: Double, event: Int64?) throws -> Bool {
        try connection.run(
            """
            INSERT INTO block_progress (dog_id, block_id, step, completed_at, event) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (dog_id, block_id, step) DO UPDATE SET completed_at = excluded.completed_at, event = excluded.event
            WHERE block_progress.completed_at > excluded.completed_at
            """, [.text(dog), .text(block), .text(step), .real(at), event.map(SQLiteValue.integer) ?? .null])
        return connection.changes > 0
    }

    public func scheduleReminder(_ reminder: Reminder, event: Int64?) throws {
        try mergeReminder(reminder, event: event)
    }

    public func appendAnalytics(_ analytics: AnalyticsEvent, event: Int64?) throws {
        try connection.run(
            "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)",
            [
                .text(analytics.userID), .text(analytics.name), .real(analytics.occurredAt),
                .text(JSON.object(analytics.properties).compactText), event.map(SQLiteValue.integer) ?? .null,
            ])
    }

    public func grantReward(_ reward: Reward, event: Int64?) throws {
        try connection.run(
            "INSERT INTO rewards (user_id, reward, amount, badge_id, reason, granted_at, event) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(reward.userID), .text(reward.reward), reward.amount.map(SQLiteValue.real) ?? .null,
                .optional(reward.badgeID), .optional(reward.reason), .real(reward.grantedAt),
                event.map(SQLiteValue.integer) ?? .null,
            ])
    }

    // MARK: Statistics

    public func statistics() throws -> StoreStatistics {
        var names: [String] = []
        try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
        .query { row in names.append(row.text(0) ?? "") }
        var tables: [(String, Int)] = []
        for name in names {
            tables.append((name, Int(try connection.scalar("SELECT count(*) FROM \"\(name)\"") ?? 0)))
        }
        let bytes = ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
            return total + size
        }
        return StoreStatistics(path: path, schemaVersion: try connection.schemaVersion(), tables: tables, bytes: bytes)
    }

    /// `PRAGMA integrity_check`: `ok`, or what is wrong.
    public func integrityCheck() throws -> String {
        var lines: [String] = []
        try connection.prepare("PRAGMA integrity_check").query { lines.append($0.text(0) ?? "") }
        return lines.joined(separator: "\n")
    }

    static func json(_ text: String?) throws -> JSON {
        try StoredJSON.parse(text)
    }
}
