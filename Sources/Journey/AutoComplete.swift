import Core
import JQ
import RuleEngine
import Store

/// Auto-complete: when the data a block's action asks for already exists, the engine offers
/// to count it ("Found 2 weight records — count them").
public enum AutoComplete {
    /// The kind's window: a rule sees the dog's newest 100 records of each kind and its newest
    /// 200 events, so one evaluation costs the same whatever the dog's history (40,000 weights
    /// included).
    public static let recordsPerKind = 100
    public static let eventWindow = 200

    /// The evidence the block's auto-complete rule finds (empty: no offer). When the rule fails
    /// (its budget, an error, a quarantine) its fallback answers, if it has one.
    public static func evidence(
        for block: JourneyMap.Block, rule: String, dog: DogProfile, store: any StoreReader, evaluator: RuleEvaluator,
        now: Double
    ) throws -> [JSON] {
        let records = try store.newestRecords(dog: dog.id, perKind: recordsPerKind).map { record -> JSON in
            [
                "id": .string(record.id.map { "r-\($0)" } ?? ""), "kind": .string(record.kind),
                "recorded_at": .string(record.recordedAtText), "recorded_ts": .number(record.recordedAt),
                "source": .string(record.source),
                "block_id": record.blockID.map(JSON.string) ?? .null, "payload": record.payload,
            ]
        }
        let events = try store.events(dog: dog.id, limit: eventWindow).map { event -> JSON in
            [
                "event_id": .string(event.eventID), "type": .string(event.type),
                "occurred_at": .string(event.occurredAtText), "payload": event.payload,
            ]
        }
        let input: JSON = [
            "dog": dog.json, "block": ["id": .string(block.id), "action": block.action],
            "records": .array(records), "events": .array(events),
        ]
        let result = try evaluator.evaluate(
            rule, input: JV(input), options: EvaluationOptions(now: now, fallbackOnError: true))
        return result.value?.arrayValue ?? []
    }

    /// What the evidence is, for messages: "weight records".
    static func noun(_ action: String) -> String {
        switch action {
        case "save_weight": "weight records"
        case "add_vaccine": "vaccine records"
        case "start_course": "started course"
        case "upload_photo": "photos"
        default: "records"
        }
    }

    /// The offer as shown: "Found 2 weight records — count them".
    public static func offer(_ evidence: [JSON], action: String) -> String {
        let count = evidence.count
        if action == "start_course" { return "The course is already started — count it" }
        let noun = noun(action)
        return "Found \(count) \(count == 1 ? String(noun.dropLast()) : noun) — count \(count == 1 ? "it" : "them")"
    }
}
