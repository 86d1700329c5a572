import Core
import FeatureKit
import Store

/// What the result screen of a completed block shows: what changed (the records the block
/// added to the profile, the course it started) and the one block to continue with — one that
/// this completion unlocked, in the same branch first, else the recommendation.
enum BlockResult {
    /// `{what: record_added, kind, field?, text}` per kind and field of record (a check that
    /// kept a guess, then the pair, changed one thing), and `{what: course_started, course_id,
    /// text}`, in that order, the texts in `texts`' locale and naming no id: «Вес добавлен в
    /// историю Q», «Курс Q начат: «Impulse control basics»». `records` are the block's records:
    /// stored, of this event, and what the app event that completed its action added.
    static func changes(
        of block: JourneyMap.Block, map: JourneyMap, records: [ProfileRecord], courseStarted: Bool,
        texts: RequestTexts
    ) -> [JSON] {
        var seen = Set<String>()
        var changes: [JSON] = []
        for record in records {
            let field = record.payload["field"]?.stringValue
            guard seen.insert(record.kind + "\u{0}" + (field ?? "")).inserted else { continue }
            var change: JSONObject = [
                "what": "record_added", "kind": .string(record.kind),
                "text": .string(text(of: record.kind, field: field, dog: map.dog.name, texts: texts)),
            ]
            if let field { change["field"] = .string(field) }
            changes.append(.object(change))
        }
        if courseStarted, let course = block.courseID {
            let label = map.render(block.title)
            changes.append(
                [
                    "what": "course_started", "course_id": .string(course),
                    "text": .string(texts(Keys.courseStarted, ["name": .text(map.dog.name), "course": .text(label)])),
                ])
        }
        return changes
    }

    /// «Вес добавлен в историю Q», «Записано в профиль Q: play style».
    static func text(of kind: String, field: String?, dog: String, texts: RequestTexts) -> String {
        if kind == "weight" { return texts(Keys.weight, ["name": .text(dog)]) }
        let fieldKey = "journey.field." + (field ?? kind)
        let subject =
            texts.catalog.has(fieldKey) ? texts(fieldKey) : (field ?? kind).replacingOccurrences(of: "_", with: " ")
        return texts(kind == "prediction" ? Keys.prediction : Keys.noted, ["name": .text(dog), "what": .text(subject)])
    }

    /// The keys of the result screen's "what changed".
    enum Keys {
        static let weight = "journey.result.weight_added"
        static let prediction = "journey.result.prediction_saved"
        static let noted = "journey.result.noted"
        static let courseStarted = "journey.result.course_started"
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
