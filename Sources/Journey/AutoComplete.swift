import Core
import FeatureKit
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

    /// How many evidence records the block's auto-complete rule finds (0: no offer). When the
    /// rule fails (its budget, an error, a quarantine) its fallback answers, if it has one. The
    /// evidence is counted as libjq gives it, not converted.
    public static func evidenceCount(
        for block: JourneyMap.Block, rule: String, dog: DogProfile, store: any StoreReader, evaluator: RuleEvaluator,
        now: Double, unlockedAt: Double? = nil
    ) throws -> Int {
        let input = try input(
            for: block, dog: dog, store: store, reads: evaluator.ruleSet.rule(rule)?.reads, now: now,
            unlockedAt: unlockedAt)
        return try evaluator.evaluate(
            rule, input: input, options: EvaluationOptions(now: now, fallbackOnError: true), reading: \.count)
    }

    /// The rule's input: the dog, the block (with `unlocked_ts`, when the last block it needs
    /// was completed, in seconds; null when it needs none), the dog's window of records and
    /// events, built as libjq values straight from the rows (their payloads parsed by libjq).
    /// With the rule's `reads`, only the records of the kinds and the events of the types it
    /// reads, and with its `within` only those since that long before `now`: the same ones, the
    /// others neither read nor built.
    public static func input(
        for block: JourneyMap.Block, dog: DogProfile, store: any StoreReader, reads: InputSelection? = nil, now: Double,
        unlockedAt: Double? = nil
    ) throws -> JV {
        let keys = InputKeys()
        let since = reads?.since(now: now)
        // Rows of ProfileRecord.columns: id, kind, recorded_at, recorded_at_text, payload, source,
        // rule_revision, block_id.
        let records = try store.newestRecords(
            dog: dog.id, perKind: recordsPerKind, kinds: reads?.values(of: recordList.member), since: since
        ) { row -> JV in
            var record = JVObjectBuilder()
            record.set(keys.id, string: "r-" + String(row.integer(0)))
            row.withUTF8(1) { record.set(keys.kind, utf8: $0 ?? Self.empty) }
            row.withUTF8(3) { record.set(keys.recordedAt, utf8: $0 ?? Self.empty) }
            record.set(keys.recordedTS, number: row.real(2))
            row.withUTF8(5) { record.set(keys.source, utf8: $0 ?? Self.empty) }
            row.withUTF8(7) { record.set(keys.blockID, utf8: $0) }
            try row.withUTF8(4) { try record.set(keys.payload, storedJSON: $0) }
            return record.build()
        }
        // Rows of StoredEvent.latestColumns: id, user_id, event_id, type, occurred_at,
        // occurred_at_text, received_at, payload.
        let events = try store.latestEvents(
            dog: dog.id, limit: eventWindow, types: reads?.values(of: eventList.member), since: since
        ) { row -> JV in
            var event = JVObjectBuilder()
            row.withUTF8(2) { event.set(keys.eventID, utf8: $0 ?? Self.empty) }
            row.withUTF8(3) { event.set(keys.type, utf8: $0 ?? Self.empty) }
            row.withUTF8(5) { event.set(keys.occurredAt, utf8: $0 ?? Self.empty) }
            try row.withUTF8(7) { try event.set(keys.payload, storedJSON: $0) }
            return event.build()
        }
        return JV.object([
            ("dog", JV(dog.json)),
            (
                "block",
                JV([
                    "id": .string(block.id), "action": block.action,
                    "unlocked_ts": unlockedAt.map(JSON.number) ?? .null,
                ])
            ),
            (recordList.member, JV(array: records)), (eventList.member, JV(array: events)),
        ])
    }

    /// The input's lists a rule may narrow with `reads:`: the records by kind, the events by
    /// type, both by time (`within`).
    public static let recordList = SelectableInput(
        member: "records", key: "kind", what: "record kinds", timeKeys: ["recorded_ts", "recorded_at"])
    public static let eventList = SelectableInput(
        member: "events", key: "type", what: "event types", timeKeys: ["occurred_at"])

    /// The text of a NULL column the contract gives as a string.
    private static var empty: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

    /// The member names of the input, made once per input and shared by its rows.
    private struct InputKeys {
        let id = JV(string: "id"), kind = JV(string: "kind"), recordedAt = JV(string: "recorded_at")
        let recordedTS = JV(string: "recorded_ts"), source = JV(string: "source"), blockID = JV(string: "block_id")
        let payload = JV(string: "payload"), eventID = JV(string: "event_id"), type = JV(string: "type")
        let occurredAt = JV(string: "occurred_at")
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

    /// The offer as shown for `count` evidence records, in `texts`' locale: «Нашли 2 записи
    /// веса — засчитать автоматически» (seed 000), "Found 2 weight records — count them".
    /// The key is `journey.auto_complete.<action>`, else ``foundKey``.
    public static func offer(count: Int, action: String, texts: RequestTexts) -> String {
        let key = offerKey(action)
        return texts(texts.catalog.has(key) ? key : foundKey, ["count": .number(Double(count))])
    }

    /// The offer's key for `action`'s evidence.
    static func offerKey(_ action: String) -> String { "journey.auto_complete." + action }
    /// The offer of an action without its own key: «Нашли 2 записи — засчитать автоматически».
    public static let foundKey = "journey.auto_complete.found"
}
