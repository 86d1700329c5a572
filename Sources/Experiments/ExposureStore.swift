import Core
import Store

/// One use of a variation by a user: a kept assignment's first use (`viewed_at`), or an
/// `experiment_viewed` analytics event (which keeps the uses a reassignment replaced).
public struct Exposure: Sendable, Equatable {
    public var userID: String
    public var variation: String
    /// Seconds since 1970.
    public var at: Double

    public init(userID: String, variation: String, at: Double) {
        self.userID = userID
        self.variation = variation
        self.at = at
    }
}

/// An event a metric may count: an app event the engine accepted (`events`) or an analytics
/// event it wrote (`analytics_outbox`).
public struct MetricEvent: Sendable {
    public enum Source: String, Sendable {
        case app
        case analytics
    }

    public var source: Source
    public var userID: String
    /// The app event's type, or the analytics event's name.
    public var type: String
    /// Seconds since 1970.
    public var occurredAt: Double
    /// As the app sent it (with its offset) for app events; UTC for analytics events.
    public var occurredAtText: String
    public var dogID: String?
    /// The payload (app events) or properties (analytics events), as stored.
    public var payloadText: String

    /// What a metric's `where` condition sees: `{source, type, occurred_at, dog_id, payload}`.
    public func conditionInput() throws -> JSON {
        let payload = try JSONParser().parse(payloadText)
        return .object([
            "source": .string(source.rawValue), "type": .string(type), "occurred_at": .string(occurredAtText),
            "dog_id": dogID.map(JSON.string) ?? .null, "payload": payload,
        ])
    }
}

/// What the experiment report reads: exposures and the events metrics count.
extension StoreReader {
    /// Every exposure to `experiment` of a known user: kept assignments that were used, and
    /// `experiment_viewed` analytics events naming the experiment.
    public func exposures(experiment: String) throws -> [Exposure] {
        var exposures = try rows(
            """
            SELECT user_id, variation, viewed_at FROM experiment_assignments
            WHERE experiment = ? AND viewed_at IS NOT NULL AND user_id IS NOT NULL
            """, [.text(experiment)]
        ) { row in Exposure(userID: row.text(0) ?? "", variation: row.text(1) ?? "", at: row.real(2)) }
        try query(
            "SELECT user_id, occurred_at, properties FROM analytics_outbox WHERE name = 'experiment_viewed'", []
        ) { row in
            let properties = try JSONParser().parse(row.text(2) ?? "")
            guard properties["experiment"]?.stringValue == experiment,
                let variation = properties["variation"]?.stringValue
            else { return }
            exposures.append(Exposure(userID: row.text(0) ?? "", variation: variation, at: row.real(1)))
        }
        return exposures
    }

    /// The app events of type `type` and the analytics events named `type`, of the users in
    /// `users`, that happened from `from` to `to` (inclusive).
    public func metricEvents(type: String, users: Set<String>, from: Double, to: Double) throws -> [MetricEvent] {
        var events: [MetricEvent] = []
        try query(
            """
            SELECT user_id, occurred_at, occurred_at_text, dog_id, payload FROM events
            WHERE type = ? AND occurred_at >= ? AND occurred_at <= ?
            """, [.text(type), .real(from), .real(to)]
        ) { row in
            guard let user = row.text(0), users.contains(user) else { return }
            events.append(
                MetricEvent(
                    source: .app, userID: user, type: type, occurredAt: row.real(1),
                    occurredAtText: row.text(2) ?? Timestamp.format(row.real(1)), dogID: row.text(3),
                    payloadText: row.text(4) ?? "{}"))
        }
        try query(
            """
            SELECT user_id, occurred_at, properties FROM analytics_outbox
            WHERE name = ? AND occurred_at >= ? AND occurred_at <= ?
            """, [.text(type), .real(from), .real(to)]
        ) { row in
            guard let user = row.text(0), users.contains(user) else { return }
            events.append(
                MetricEvent(
                    source: .analytics, userID: user, type: type, occurredAt: row.real(1),
                    occurredAtText: Timestamp.format(row.real(1)), dogID: nil, payloadText: row.text(2) ?? "{}"))
        }
        return events
    }
}
