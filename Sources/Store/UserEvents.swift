import Core

/// Which event types a read of a user's events takes: named types, and types that begin with
/// one of `prefixes` (`ui_`); both empty means every type but `excluding`.
public struct EventTypeFilter: Sendable {
    public var types: Set<String>
    public var prefixes: [String]
    public var excluding: Set<String>

    public init(types: Set<String> = [], prefixes: [String] = [], excluding: Set<String> = []) {
        self.types = types
        self.prefixes = prefixes
        self.excluding = excluding
    }

    /// The condition on `column` and the values it binds, in order.
    func sql(_ column: String) -> (String, [SQLValue]) {
        var alternatives: [String] = []
        var values: [SQLValue] = []
        if !types.isEmpty {
            let sorted = types.sorted()
            alternatives.append("\(column) IN (\(sorted.map { _ in "?" }.joined(separator: ", ")))")
            values += sorted.map(SQLValue.text)
        }
        for prefix in prefixes {
            alternatives.append("\(column) LIKE ? ESCAPE '\\'")
            values.append(.text(Self.likePattern(prefix) + "%"))
        }
        var condition = alternatives.isEmpty ? "1 = 1" : "(\(alternatives.joined(separator: " OR ")))"
        for excluded in excluding.sorted() {
            condition += " AND \(column) <> ?"
            values.append(.text(excluded))
        }
        return (condition, values)
    }

    /// `text` with LIKE's wildcards (`%`, `_`) and its escape (`\`) escaped by `\`, for
    /// `LIKE ? ESCAPE '\'`. Byte by byte: the three are ASCII, so no multi-byte character is
    /// split (`String.replacing` cost ~7 k instructions a call, three calls a pattern).
    public static func likePattern(_ text: String) -> String {
        func isSpecial(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "_")
        }
        guard text.utf8.contains(where: isSpecial) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 4)
        for byte in text.utf8 {
            if isSpecial(byte) { escaped.append(UInt8(ascii: "\\")) }
            escaped.append(byte)
        }
        return String(decoding: escaped, as: UTF8.self)
    }
}

/// One of a user's stored events, as a feature replays it.
public struct StoredUserEvent: Sendable {
    public var row: Int64
    public var eventID: String
    public var type: String
    public var dogID: String?
    public var occurredAt: Double
    public var occurredAtText: String
    public var payload: JSON
    /// The properties of the analytics event it produced under the name asked for (the facts
    /// a feature established for it, such as a check-in's streak), when asked for and kept.
    public var analytics: JSON?

    /// From a row of `id, event_id, type, dog_id, occurred_at, occurred_at_text, payload, analytics`.
    init(row: any SQLRow) throws {
        self.row = row.integer(0)
        eventID = row.text(1) ?? ""
        type = row.text(2) ?? ""
        dogID = row.text(3)
        occurredAt = row.real(4)
        occurredAtText = row.text(5) ?? ""
        payload = try StoredJSON.parse(row.text(6))
        analytics = try row.text(7).map(StoredJSON.parse)
    }

    /// The event as rules see it: `{event_id, user_id, type, occurred_at, dog_id, payload}`.
    public func json(user: String) -> JSON {
        var object: JSONObject = [
            "event_id": .string(eventID), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(occurredAtText),
        ]
        object["dog_id"] = dogID.map(JSON.string) ?? .null
        object["payload"] = payload
        return .object(object)
    }
}

extension StoreReader {
    /// `user`'s stored events from `from` through `through` of the types `filter` takes, in
    /// time order (`occurred_at`, then `event_id`), read through the user's time index; with
    /// `analytics`, each with the properties of the analytics event of that name it produced.
    public func userEvents(
        user: String, from: Double = -.infinity, through: Double = .infinity, filter: EventTypeFilter,
        analytics: String? = nil
    ) throws -> [StoredUserEvent] {
        let (condition, values) = filter.sql("e.type")
        let facts =
            analytics == nil
            ? "NULL"
            : "(SELECT a.properties FROM analytics_outbox a WHERE a.event = e.id AND a.name = ? LIMIT 1)"
        var bounds: [SQLValue] = analytics.map { [.text($0)] } ?? []
        bounds.append(.text(user))
        var range = ""
        if from > -.infinity {
            range += " AND e.occurred_at >= ?"
            bounds.append(.real(from))
        }
        if through < .infinity {
            range += " AND e.occurred_at <= ?"
            bounds.append(.real(through))
        }
        return try rows(
            """
            SELECT e.id, e.event_id, e.type, e.dog_id, e.occurred_at, e.occurred_at_text, e.payload, \(facts)
            FROM events e WHERE e.user_id = ?\(range) AND \(condition) ORDER BY e.occurred_at, e.event_id
            """, bounds + values, StoredUserEvent.init(row:))
    }

    /// `dog`'s stored events from `from` on, of the types `filter` takes, in time order, read
    /// through the dog's time index.
    public func dogEvents(dog: String, from: Double, filter: EventTypeFilter) throws -> [StoredUserEvent] {
        let (condition, values) = filter.sql("type")
        return try rows(
            """
            SELECT id, event_id, type, dog_id, occurred_at, occurred_at_text, payload, NULL FROM events
            WHERE dog_id = ? AND occurred_at >= ? AND \(condition) ORDER BY occurred_at, event_id
            """, [.text(dog), .real(from)] + values, StoredUserEvent.init(row:))
    }

    /// The time order key (`occurred_at`, `event_id`) of `user`'s latest stored event of the
    /// types `filter` takes; nil when there is none.
    public func latestUserEvent(user: String, filter: EventTypeFilter) throws -> (occurredAt: Double, eventID: String)?
    {
        let (condition, values) = filter.sql("type")
        return try first(
            """
            SELECT occurred_at, event_id FROM events WHERE user_id = ? AND \(condition)
            ORDER BY occurred_at DESC, event_id DESC LIMIT 1
            """, [.text(user)] + values
        ) { ($0.real(0), $0.text(1) ?? "") }
    }
}
