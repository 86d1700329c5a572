import Core
import Engine
import Store

/// The Dog Journey's analytics that follow what the app reports rather than a block's flow:
/// the AI interpretation read, the profile's records from every source, and the return to
/// the journey within a week.
enum JourneyAnalytics {
    /// The app event saying the user finished reading the AI interpretation.
    static let interpretationRead = "ai_interpretation_read"
    /// The app event of opening the journey.
    static let opened = "journey_opened"
    /// How soon after the first open a second one counts as a return.
    static let returnWindow = 7 * 86_400.0
    /// The analytics event of a return to the journey within ``returnWindow``.
    static let returnName = "journey_return_d7"

    /// `ai_interpretation_completed` when the app reports the interpretation read.
    static func interpretationCompleted(_ event: Event, dog: DogProfile) -> [Effect] {
        [.analyticsEvent(name: "ai_interpretation_completed", properties: ["dog_id": .string(dog.id)])]
    }

    /// `profile_records_added` for the records other consumers added for this event (a saved
    /// weight, a vaccine…): the journey's own checks count theirs with their block.
    static func recordsAdded(_ event: Event, earlier: [Effect]) -> [Effect] {
        let records = earlier.compactMap { effect -> ProfileRecord? in
            if case .recordAdded(let record) = effect, record.source != "journey" { return record }
            return nil
        }
        guard let first = records.first else { return [] }
        return [
            .analyticsEvent(
                name: "profile_records_added",
                properties: [
                    "dog_id": .string(first.dogID), "count": .number(Double(records.count)),
                    "kinds": .array(Array(Set(records.map(\.kind))).sorted().map(JSON.string)),
                    "source": .string(first.source), "block_id": .null,
                ])
        ]
    }

    /// `journey_return_d7` once per dog, when the journey is opened again within 7 days of its
    /// first open (in time order: dated at the first such return, whatever arrived first).
    static func returned(_ event: Event, dog: DogProfile, store: any StoreReader) throws -> [Effect] {
        let kept = try store.analytics(user: event.userID, name: returnName, dog: dog.id)
        // Counted already, at or before this open: nothing this one can change.
        if let kept, kept.occurredAt <= event.occurredAt { return [] }
        let opens = try store.firstJourneyOpens(dog: dog.id, window: returnWindow)
        let stored = opens?.first
        let first = min(stored ?? event.occurredAt, event.occurredAt)
        // Past the first week, an open can neither be the first nor a return: nothing to look up.
        if kept == nil, event.occurredAt > first + returnWindow { return [] }
        // The stored return after the first open (none without a stored open); looked up again
        // only when this open comes before the stored first one.
        var back =
            stored == nil || first == stored
            ? opens?.next : try store.firstJourneyOpen(dog: dog.id, after: first, through: first + returnWindow)
        if event.occurredAt > first, event.occurredAt <= first + returnWindow {
            back = min(back ?? event.occurredAt, event.occurredAt)
        }
        guard let back else { return [] }
        let properties: JSONObject = [
            "dog_id": .string(dog.id), "first_opened_at": .string(Timestamp.format(first)),
            "days": .number(((back - first) / 86_400 * 10).rounded() / 10),
        ]
        if let kept {
            // An earlier return that arrived late moves it back while unsent.
            guard back < kept.occurredAt, kept.sentAt == nil,
                let id = try kept.id ?? store.analyticsID(user: event.userID, name: returnName, dog: dog.id)
            else { return [] }
            return [AnalyticsRedatedEffect(id: id, at: back, properties: properties).effect]
        }
        return [
            Effect.analyticsEvent(name: returnName, properties: properties).dated(
                back, eventTime: event.occurredAt)
        ]
    }
}

/// The first `ai_interpretation_read` report of a dog; its `type` is written out, so that the
/// partial index on those reports serves it.
let interpretationReadSQL = """
    SELECT occurred_at FROM events WHERE dog_id = ? AND type = 'ai_interpretation_read'
    ORDER BY occurred_at LIMIT 1
    """

extension StoreReader {
    /// When `dog`'s journey was first opened (after `after`, through `through`), by its stored
    /// `journey_opened` events: one step of the dog's time index.
    func firstJourneyOpen(dog: String, after: Double = -.infinity, through: Double = .infinity) throws -> Double? {
        try first(
            """
            SELECT occurred_at FROM events WHERE dog_id = ? AND occurred_at > ? AND occurred_at <= ?
            AND type = 'journey_opened' ORDER BY occurred_at LIMIT 1
            """, [.text(dog), .real(after.isFinite ? after : -1e300), .real(through.isFinite ? through : 1e300)]
        ) { $0.real(0) }
    }

    /// When the app first reported `dog`'s AI interpretation read (`ai_interpretation_read`, in
    /// event time, whatever arrived first); nil while it has not. A resent report is a
    /// duplicate and never stored twice; another user's report for the dog is refused.
    /// One probe of the partial index `events_interpretation_read` (migration 14), whatever the
    /// number of the dog's other events.
    public func interpretationReadAt(dog: String) throws -> Double? {
        try first(interpretationReadSQL, [.text(dog)]) { $0.real(0) }
    }

    /// When `dog`'s journey was first opened, by its stored `journey_opened` events, and its next
    /// open after that within `window` (nil when none): both in one statement, kept for the rest
    /// of a write transaction (an open the batch stores updates what was kept).
    func firstJourneyOpens(dog: String, window: Double) throws -> JourneyOpens? {
        try keptFirst(
            journeyOpensSQL, [.text(dog), .real(window), .text(dog)], table: "events", keys: journeyOpenKeys(dog),
            afterInsert: JourneyOpens.afterInsert(window: window)
        ) { JourneyOpens(first: $0.real(0), next: $0.isNull(1) ? nil : $0.real(1)) }
    }

    /// Reads the opens of all of `dogs` (``firstJourneyOpens(dog:window:)``) in one statement
    /// (per 100 dogs) and keeps each dog's for the rest of the write transaction: a batch's
    /// opens then wait for none of them. Nothing outside a transaction.
    func keepJourneyOpens(dogs: [String], window: Double) throws {
        guard let reads = transactionReads, reads.isKeeping else { return }
        try inChunks(of: dogs) { chunk, placeholders in
            var found: [String: JourneyOpens] = [:]
            try query(
                """
                SELECT f.dog_id, f.occurred_at, (SELECT occurred_at FROM events WHERE dog_id = f.dog_id
                    AND occurred_at > f.occurred_at AND occurred_at <= f.occurred_at + ? AND type = 'journey_opened'
                    ORDER BY occurred_at LIMIT 1)
                FROM (SELECT dog_id, min(occurred_at) AS occurred_at FROM events
                    WHERE type = 'journey_opened' AND dog_id IN (\(placeholders)) GROUP BY dog_id) AS f
                """, [.real(window)] + chunk.map(SQLValue.text)
            ) { found[$0.text(0) ?? ""] = JourneyOpens(first: $0.real(1), next: $0.isNull(2) ? nil : $0.real(2)) }
            for dog in Set(chunk) {
                keepFirst(
                    journeyOpensSQL, [.text(dog), .real(window), .text(dog)], table: "events",
                    keys: journeyOpenKeys(dog), afterInsert: JourneyOpens.afterInsert(window: window),
                    answer: found[dog])
            }
        }
    }

    /// Whether `dog`'s journey map was built.
    func hasManifest(dog: String) throws -> Bool {
        try first("SELECT 1 FROM manifests WHERE dog_id = ?", [.text(dog)]) { _ in true } ?? false
    }

    /// `user`'s analytics event `name` for `dog` (its `dog_id` property), if there is one (kept
    /// for the rest of a write transaction: each `journey_opened` reads it, and the batch's own
    /// insert of it keeps what was read, ``KeptAnalytics/afterInsert(dog:)``).
    func analytics(user: String, name: String, dog: String) throws -> KeptAnalytics? {
        try keptFirst(
            analyticsOfDogSQL, analyticsOfDogValues(user, name, dog), table: "analytics_outbox",
            keys: [("user_id", .text(user)), ("name", .text(name))], afterInsert: KeptAnalytics.afterInsert(dog: dog)
        ) { KeptAnalytics(id: $0.integer(0), occurredAt: $0.real(1), sentAt: $0.optionalReal(2)) }
    }

    /// The id of ``analytics(user:name:dog:)``'s row, read now (what was kept may not know it).
    func analyticsID(user: String, name: String, dog: String) throws -> Int64? {
        try first(analyticsOfDogSQL, analyticsOfDogValues(user, name, dog)) { $0.integer(0) }
    }

    /// Reads ``analytics(user:name:dog:)`` for all of `pairs` in one statement (per 100 pairs)
    /// and keeps each pair's for the rest of the write transaction; the same `LIKE` matches, so
    /// each backend answers as the read itself would. Nothing outside a transaction.
    func keepAnalytics(name: String, of pairs: [(user: String, dog: String)]) throws {
        guard let reads = transactionReads, reads.isKeeping else { return }
        let keys = pairs.map { UserPattern(user: $0.user, pattern: dogPropertyPattern($0.dog)) }
        let dogs = Dictionary(pairs.map { (dogPropertyPattern($0.dog), $0.dog) }) { first, _ in first }
        try inChunks(of: keys, placeholder: "(?, ?)") { chunk, placeholders in
            var found: [UserPattern: KeptAnalytics] = [:]
            try query(
                """
                SELECT p.column1, p.column2, a.id, a.occurred_at, a.sent_at FROM (VALUES \(placeholders)) AS p
                JOIN analytics_outbox AS a ON a.user_id = p.column1 AND a.name = ?
                    AND a.properties LIKE p.column2 ESCAPE '\\'
                ORDER BY p.column1, p.column2, a.id
                """, chunk.flatMap { [SQLValue.text($0.user), .text($0.pattern)] } + [.text(name)]
            ) { row in
                let key = UserPattern(user: row.text(0) ?? "", pattern: row.text(1) ?? "")
                if found[key] == nil {
                    found[key] = KeptAnalytics(id: row.integer(2), occurredAt: row.real(3), sentAt: row.optionalReal(4))
                }
            }
            for key in Set(chunk) {
                keepFirst(
                    analyticsOfDogSQL, [.text(key.user), .text(name), .text(key.pattern)], table: "analytics_outbox",
                    keys: [("user_id", .text(key.user)), ("name", .text(name))],
                    afterInsert: dogs[key.pattern].map(KeptAnalytics.afterInsert(dog:)), answer: found[key])
            }
        }
    }
}

/// A user and a `LIKE` pattern of properties (a key of ``StoreReader/keepAnalytics(name:of:)``).
private struct UserPattern: Hashable, Comparable {
    var user: String
    var pattern: String

    static func < (a: Self, b: Self) -> Bool { (a.user, a.pattern) < (b.user, b.pattern) }
}

/// An analytics event kept in the outbox: its id (nil: inserted by this transaction, its id
/// given by the table's identity and read when needed), time and when it was sent (nil: not yet).
struct KeptAnalytics: Equatable {
    var id: Int64?
    var occurredAt: Double
    var sentAt: Double?

    /// What an insert of the user's event of that name makes of what was read for `dog`: a row
    /// read stays the first (ids only grow); with none, the row inserted is it when its
    /// properties name the dog, exactly; what only a case-blind `LIKE` (SQLite's) would match
    /// is read again.
    static func afterInsert(dog: String) -> KeptAfterInsert<KeptAnalytics> {
        let literal = Array(dogPropertyLiteral(dog).utf8)
        return KeptAfterInsert { row, old in
            if let old { return .some(old) }
            guard case .text(let properties)? = row("properties"), case .real(let at)? = row("occurred_at") else {
                return nil
            }
            if properties.utf8.firstRange(of: literal) != nil {
                let sentAt: Double? = if case .real(let sent)? = row("sent_at") { sent } else { nil }
                return .some(KeptAnalytics(id: nil, occurredAt: at, sentAt: sentAt))
            }
            let folded = literal.map(asciiLowercased)
            return Array(properties.utf8.lazy.map(asciiLowercased)).firstRange(of: folded) == nil ? .some(nil) : nil
        }
    }
}

private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
}

/// A dog's first journey open and its next open within the return window (nil: none).
struct JourneyOpens: Equatable {
    var first: Double
    var next: Double?

    /// What a stored open at the inserted row's `occurred_at` makes of a dog's opens (kept
    /// reads, ``StoreReader/firstJourneyOpens(dog:window:)``): exactly what the read would answer.
    static func afterInsert(window: Double) -> KeptAfterInsert<JourneyOpens> {
        KeptAfterInsert { row, old in
            guard case .real(let at)? = row("occurred_at") else { return nil }
            guard let old else { return .some(JourneyOpens(first: at, next: nil)) }
            if at < old.first {
                return .some(JourneyOpens(first: at, next: old.first <= at + window ? old.first : nil))
            }
            if at > old.first, at <= old.first + window {
                return .some(JourneyOpens(first: old.first, next: min(old.next ?? at, at)))
            }
            return .some(old)
        }
    }
}

/// A dog's first open and the next within a window (`?2`), in one statement.
private let journeyOpensSQL = """
    SELECT f.occurred_at, (SELECT occurred_at FROM events WHERE dog_id = ? AND occurred_at > f.occurred_at
        AND occurred_at <= f.occurred_at + ? AND type = 'journey_opened' ORDER BY occurred_at LIMIT 1)
    FROM (SELECT occurred_at FROM events WHERE dog_id = ? AND type = 'journey_opened'
        ORDER BY occurred_at LIMIT 1) AS f
    """

/// The rows ``journeyOpensSQL`` reads: a dog's `journey_opened` events.
private func journeyOpenKeys(_ dog: String) -> [(column: String, value: SQLValue)] {
    [("dog_id", .text(dog)), ("type", .text(JourneyAnalytics.opened))]
}

/// A user's first analytics event of a name whose properties name a dog.
private let analyticsOfDogSQL = """
    SELECT id, occurred_at, sent_at FROM analytics_outbox
    WHERE user_id = ? AND name = ? AND properties LIKE ? ESCAPE '\\' ORDER BY id LIMIT 1
    """

/// ``analyticsOfDogSQL``'s values for `user`'s event `name` naming `dog`.
private func analyticsOfDogValues(_ user: String, _ name: String, _ dog: String) -> [SQLValue] {
    [.text(user), .text(name), .text(dogPropertyPattern(dog))]
}

/// The text of properties that name `dog`: `"dog_id":"…"`.
private func dogPropertyLiteral(_ dog: String) -> String {
    "\"dog_id\":" + JSON.string(dog).compactText
}

/// The `LIKE` pattern of properties that name `dog` (``dogPropertyLiteral(_:)`` within).
private func dogPropertyPattern(_ dog: String) -> String {
    "%" + EventTypeFilter.likePattern(dogPropertyLiteral(dog)) + "%"
}

/// An analytics event not sent yet, moved to another time with new properties (a late event
/// changed when it happened).
public struct AnalyticsRedatedEffect: FeatureEffect, Equatable {
    public var id: Int64
    public var at: Double
    public var properties: JSONObject

    public var typeName: String { "analytics_redated" }
    public var label: String { "analytics_redated(\(id))" }
    public var members: JSONObject {
        ["id": .number(Double(id)), "occurred_at": .string(Timestamp.format(at)), "properties": .object(properties)]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.run(
            "UPDATE analytics_outbox SET occurred_at = ?, properties = ? WHERE id = ? AND sent_at IS NULL",
            [.real(at), .text(JSON.object(properties).compactText), .integer(id)])
    }
}
