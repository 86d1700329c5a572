import Core
import Store

/// What deleting a tracker or a category erases beyond its rows: the personal fields of the
/// events that created and changed it (their payloads and the effects kept with them), and the
/// analytics about it not sent yet (withdrawn). Each event is kept with its `event_id`, so a resend is still
/// a duplicate; its name becomes a placeholder, so replaying the event log still works.
extension Store {
    /// The name a deleted tracker's events keep.
    static var erasedTrackerName: String { "deleted tracker" }
    /// The name a deleted category's events keep.
    static var erasedCategoryName: String { "deleted category" }

    /// Erases tracker `id`'s name, emoji and colour from `user`'s stored events, and withdraws
    /// its `habit_checked` analytics not sent yet: marked sent at `at`, so they never leave.
    /// (Withdrawn, not deleted: SQLite would give a deleted last row's id to the next one, and
    /// a pipeline marking the old id sent, or reading after it, would lose that new event.)
    func eraseTrackerTraces(user: String, tracker id: String, at: Double) throws {
        try erase(
            user: user, types: ["tracker_created", "tracker_updated"], key: "tracker_id", id: id,
            name: Self.erasedTrackerName, fields: ["emoji", "color"])
        var unsent: [Int64] = []
        try query(
            "SELECT id, properties FROM analytics_outbox WHERE user_id = ? AND name = ? AND sent_at IS NULL",
            [.text(user), .text("habit_checked")]
        ) { row in
            let properties = try? JSONParser().parse(row.text(1) ?? "")
            if properties?["tracker_id"]?.stringValue == id { unsent.append(row.integer(0)) }
        }
        for row in unsent {
            _ = try run(
                "UPDATE analytics_outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL", [.real(at), .integer(row)])
        }
    }

    /// Erases category `id`'s name from `user`'s stored events.
    func eraseCategoryTraces(user: String, category id: String) throws {
        try erase(
            user: user, types: ["category_created", "category_renamed"], key: "category_id", id: id,
            name: Self.erasedCategoryName, fields: [])
    }

    /// In `user`'s events of `types` whose payload's `key` is `id`: the payload's and the
    /// matching `habit_changed` effects' `name` becomes `name`, and `fields` go.
    private func erase(user: String, types: [String], key: String, id: String, name: String, fields: [String])
        throws
    {
        var changed: [(row: Int64, payload: String, outcome: String)] = []
        let marks = types.map { _ in "?" }.joined(separator: ", ")
        try query(
            "SELECT id, payload, outcome FROM events WHERE user_id = ? AND type IN (\(marks))",
            [.text(user)] + types.map(SQLValue.text)
        ) { row in
            guard let payload = try? JSONParser().parse(row.text(1) ?? ""), payload[key]?.stringValue == id else {
                return
            }
            let outcome = (try? JSONParser().parse(row.text(2) ?? "")) ?? .null
            let effects = (outcome.arrayValue ?? []).map { effect in
                effect["type"] == "habit_changed" && effect[key]?.stringValue == id
                    ? Self.erased(effect, name: name, fields: fields) : effect
            }
            changed.append(
                (
                    row.integer(0), Self.erased(payload, name: name, fields: fields).compactText,
                    (outcome.arrayValue == nil ? outcome : .array(effects)).compactText
                ))
        }
        for event in changed {
            _ = try run(
                "UPDATE events SET payload = ?, outcome = ? WHERE id = ?",
                [.text(event.payload), .text(event.outcome), .integer(event.row)])
        }
    }

    private static func erased(_ value: JSON, name: String, fields: [String]) -> JSON {
        guard case .object(var object) = value else { return value }
        if object["name"] != nil { object["name"] = .string(name) }
        for field in fields { object[field] = nil }
        return .object(object)
    }
}
