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
        let kept = try store.analytics(user: event.userID, name: "journey_return_d7", dog: dog.id)
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
            guard back < kept.occurredAt, kept.sentAt == nil else { return [] }
            return [AnalyticsRedatedEffect(id: kept.id, at: back, properties: properties).effect]
        }
        return [
            Effect.analyticsEvent(name: "journey_return_d7", properties: properties).dated(
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
    /// open after that within `window` (nil when none): both in one statement.
    func firstJourneyOpens(dog: String, window: Double) throws -> (first: Double, next: Double?)? {
        try first(
            """
            SELECT f.occurred_at, (SELECT occurred_at FROM events WHERE dog_id = ? AND occurred_at > f.occurred_at
                AND occurred_at <= f.occurred_at + ? AND type = 'journey_opened' ORDER BY occurred_at LIMIT 1)
            FROM (SELECT occurred_at FROM events WHERE dog_id = ? AND type = 'journey_opened'
                ORDER BY occurred_at LIMIT 1) AS f
            """, [.text(dog), .real(window), .text(dog)]
        ) { ($0.real(0), $0.isNull(1) ? nil : $0.real(1)) }
    }

    /// Whether `dog`'s journey map was built.
    func hasManifest(dog: String) throws -> Bool {
        try first("SELECT 1 FROM manifests WHERE dog_id = ?", [.text(dog)]) { _ in true } ?? false
    }

    /// `user`'s analytics event `name` for `dog` (its `dog_id` property), if there is one (kept
    /// for the rest of a write transaction: each `journey_opened` reads it).
    func analytics(user: String, name: String, dog: String) throws -> (id: Int64, occurredAt: Double, sentAt: Double?)?
    {
        try keptFirst(
            """
            SELECT id, occurred_at, sent_at FROM analytics_outbox
            WHERE user_id = ? AND name = ? AND properties LIKE ? ESCAPE '\\' ORDER BY id LIMIT 1
            """,
            [
                .text(user), .text(name),
                .text("%\"dog_id\":" + EventTypeFilter.likePattern(JSON.string(dog).compactText) + "%"),
            ], table: "analytics_outbox", keys: [("user_id", .text(user)), ("name", .text(name))]
        ) { ($0.integer(0), $0.real(1), $0.optionalReal(2)) }
    }
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
