import Core
import Store

/// What the result screen of a completed block shows: what changed (the records the block
/// added to the profile, the course it started) and the one block to continue with — one that
/// this completion unlocked, in the same branch first, else the recommendation.
enum BlockResult {
    /// `{what: record_added, kind, field?, text}` per record and `{what: course_started,
    /// course_id, text}`, in that order. `records` are the block's records: stored, of this
    /// event, and what the app event that completed its action added.
    static func changes(
        of block: JourneyMap.Block, map: JourneyMap, records: [ProfileRecord], courseStarted: Bool
    ) -> [JSON] {
        var changes: [JSON] = records.map { record in
            let field = record.payload["field"]?.stringValue
            var change: JSONObject = [
                "what": "record_added", "kind": .string(record.kind),
                "text": .string(text(of: record.kind, field: field, dog: map.dog.name)),
            ]
            if let field { change["field"] = .string(field) }
            return .object(change)
        }
        if courseStarted, let course = block.courseID {
            changes.append(
                [
                    "what": "course_started", "course_id": .string(course),
                    "text": .string("\(map.dog.name)'s course \(course) started"),
                ])
        }
        return changes
    }

    /// "Weight added to Q's history", "Baseline weight noted in Q's profile".
    static func text(of kind: String, field: String?, dog: String) -> String {
        if kind == "weight" { return "Weight added to \(dog)'s history" }
        let words = (field ?? kind).replacingOccurrences(of: "_", with: " ")
        let subject = words.prefix(1).uppercased() + words.dropFirst()
        return kind == "prediction"
            ? "\(subject): your guess and the measurement saved to \(dog)'s profile"
            : "\(subject) noted in \(dog)'s profile"
    }

    /// The block to continue with after `completed`, and why: `unlocked` (its last need was
    /// just completed; the same branch first, then the others in map order) or `recommended`.
    static func next(after completed: JourneyMap.Block, before: JourneyState, after: JourneyState) -> (
        id: String, reason: String
    )? {
        let unlocked = after.map.blocks.filter { block in
            before.status(of: block.id) == .locked && after.status(of: block.id) != .locked
                && !after.isCompleted(block.id)
        }
        if let block = unlocked.first(where: { $0.branch == completed.branch }) ?? unlocked.first {
            return (block.id, "unlocked")
        }
        let fallback = after.recommended ?? after.map.blocks.first { after.status(of: $0.id) == .available }?.id
        return fallback.map { ($0, "recommended") }
    }
}
