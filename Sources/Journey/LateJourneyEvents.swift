import Core
import Engine
import Store

/// A late event changed what a block's analytics event (not yet sent) says: the block was
/// completed sooner, or its action was done sooner and by another event. What was sent stays.
public struct JourneyAnalyticsRevisedEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    /// `action_completed`, `block_completed` or `block_started`.
    public var name: String
    /// Its new time (nil: unchanged).
    public var at: Double?
    /// The properties set; all of them when `replacing`, else merged into the kept ones.
    public var properties: JSONObject
    public var replacing: Bool

    public var typeName: String { "analytics_revised" }
    public var label: String { "analytics_revised(\(name)/\(blockID))" }
    public var members: JSONObject {
        var members: JSONObject = [
            "dog_id": .string(dogID), "block_id": .string(blockID), "name": .string(name),
            "properties": .object(properties),
        ]
        if let at { members["occurred_at"] = .string(Timestamp.format(at)) }
        return members
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        var rows: [(Int64, JSONObject)] = []
        try store.query(
            "SELECT id, properties FROM analytics_outbox WHERE user_id = ? AND name = ? AND sent_at IS NULL",
            [.text(event.userID), .text(name)]
        ) { row in
            guard let text = row.text(1), case .object(let kept)? = try? JSONParser().parse(text),
                kept["dog_id"]?.stringValue == dogID, kept["block_id"]?.stringValue == blockID
            else { return }
            rows.append((row.integer(0), kept))
        }
        for (id, kept) in rows {
            var revised = replacing ? properties : kept
            if !replacing { for (key, value) in properties { revised[key] = value } }
            let text = JSON.object(revised).compactText
            if let at {
                _ = try store.run(
                    "UPDATE analytics_outbox SET properties = ?, occurred_at = ? WHERE id = ?",
                    [.text(text), .real(at), .integer(id)])
            } else {
                _ = try store.run(
                    "UPDATE analytics_outbox SET properties = ? WHERE id = ?", [.text(text), .integer(id)])
            }
        }
    }
}

/// A late event completed a block sooner: its pending return reminder ("weigh Q again in two
/// weeks") is due that much sooner, or gives way to the runner-up of its kind.
public struct ReturnReminderMovedEffect: FeatureEffect, Equatable {
    public var dogID: String
    public var blockID: String
    public var kind: String
    public var from: Double
    public var to: Double

    public var typeName: String { "reminder_moved" }
    public var label: String { "reminder_moved(\(kind)/\(blockID))" }
    public var members: JSONObject {
        [
            "dog_id": .string(dogID), "block_id": .string(blockID), "kind": .string(kind),
            "due_at": .string(Timestamp.format(to)),
        ]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        // Sooner, it may give way to the runner-up of its kind (one a rule asked for).
        for id in try pending(in: store, event: event, dueColumn: "due_at", payloadColumn: "payload") {
            try store.movePendingReminder(id, to: to)
        }
        // Kept as the runner-up of another, it is that one's runner-up sooner.
        for id in try pending(in: store, event: event, dueColumn: "runner_due", payloadColumn: "runner_payload") {
            _ = try store.run("UPDATE reminders SET runner_due = ? WHERE id = ?", [.real(to), .integer(id)])
        }
    }

    /// The pending reminders of this kind whose `dueColumn` is `from` and whose payload in
    /// `payloadColumn` leads back to the block.
    private func pending(in store: any Store, event: Event, dueColumn: String, payloadColumn: String) throws -> [Int64]
    {
        var ids: [Int64] = []
        try store.query(
            """
            SELECT id, \(payloadColumn) FROM reminders
            WHERE user_id = ? AND dog_id = ? AND kind = ? AND status = 'pending' AND \(dueColumn) = ?
            """,
            [.text(event.userID), .text(dogID), .text(kind), .real(from)]
        ) { row in
            guard let text = row.text(1), (try? JSONParser().parse(text))?["block_id"]?.stringValue == blockID else {
                return
            }
            ids.append(row.integer(0))
        }
        return ids
    }
}

extension Effect {
    /// Whether this is (or wraps, dated) the analytics event `name` of `block`.
    func isAnalytics(_ name: String, block: String) -> Bool {
        switch self {
        case .analyticsEvent(let kept, let properties): kept == name && properties["block_id"]?.stringValue == block
        case .feature(let effect): (effect as? DatedEffect)?.wrapped.isAnalytics(name, block: block) ?? false
        default: false
        }
    }
}
