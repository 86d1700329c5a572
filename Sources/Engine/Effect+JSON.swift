import Core
import JQ
import RuleEngine
import Store

extension Effect {
    /// The effect as JSON, as ingest results and stored outcomes show it.
    public var json: JSON {
        // Every effect is computed and kept as JSON: its members are appended in order (the
        // keys below are distinct), into room made once.
        var object = JSONObject()
        object.reserveCapacity(8)
        object.appendUnique("type", .string(typeName))
        switch self {
        case .dogRegistered(let dog):
            object.appendUnique("dog", dog.json)
        case .recordAdded(let record):
            object.appendUnique("dog_id", .string(record.dogID))
            object.appendUnique("kind", .string(record.kind))
            object.appendUnique("recorded_at", .string(record.recordedAtText))
            object.appendUnique("payload", record.payload)
            object.appendUnique("source", .string(record.source))
            object.appendUnique("block_id", record.blockID.map(JSON.string) ?? .null)
        case .rewardGranted(let reward, let amount, let badge, let reason):
            object.appendUnique("reward", .string(reward))
            object.appendUnique("amount", amount.map(JSON.number) ?? .null)
            object.appendUnique("badge_id", badge.map(JSON.string) ?? .null)
            object.appendUnique("reason", reason.map(JSON.string) ?? .null)
        case .reminderScheduled(let reminder):
            object.appendUnique("kind", .string(reminder.kind))
            object.appendUnique("due_at", .string(Timestamp.format(reminder.dueAt)))
            object.appendUnique("dog_id", reminder.dogID.map(JSON.string) ?? .null)
            object.appendUnique("payload", reminder.payload)
        case .analyticsEvent(let name, let properties):
            object.appendUnique("name", .string(name))
            object.appendUnique("properties", .object(properties))
        case .feature(let effect):
            for (key, value) in effect.members { object[key] = value }
        }
        return .object(object)
    }

    /// The engine's own effect types.
    static let engineTypes: [EffectType] = [
        EffectType("record_added") { fields, event, ruleRevision throws(FieldError) in
            let dog = try fields.optionalString("dog_id") ?? event.dogID
            guard let dog else { throw fields.fail("dog_id", .missing, "is required (the event has none)") }
            let kind = try fields.string("kind")
            let recordedText = try fields.optionalString("recorded_at") ?? event.occurredAtText
            guard let recordedAt = Timestamp.parse(recordedText) else {
                throw fields.fail("recorded_at", .invalid, "must be an ISO 8601 date-time with an offset")
            }
            let payload = try fields.object("payload")
            let source = try fields.optionalString("source") ?? "app"
            let block = try fields.optionalString("block_id")
            try fields.finish()
            return .recordAdded(
                ProfileRecord(
                    dogID: dog, kind: kind, recordedAt: recordedAt, recordedAtText: recordedText,
                    payload: .object(payload), source: source, ruleRevision: ruleRevision, blockID: block))
        },
        EffectType("reward_granted") { fields, _, _ throws(FieldError) in
            let reward = try fields.string("reward")
            let amount = try fields.optionalNumber("amount")
            let badge = try fields.optionalString("badge_id")
            let reason = try fields.optionalString("reason")
            switch reward {
            case "xp" where (amount ?? 0) > 0 && badge == nil: break
            case "badge" where badge != nil && amount == nil: break
            default:
                throw fields.fail(nil, .invalid, "is either {reward: xp, amount > 0} or {reward: badge, badge_id}")
            }
            try fields.finish()
            return .rewardGranted(reward: reward, amount: amount, badgeID: badge, reason: reason)
        },
        EffectType("reminder_scheduled") { fields, event, _ throws(FieldError) in
            let kind = try fields.string("kind")
            let dueAt: Double
            switch (try fields.optionalString("due_at"), try fields.optionalString("due_in")) {
            case (let text?, nil):
                guard let seconds = Timestamp.parse(text) else {
                    throw fields.fail("due_at", .invalid, "must be an ISO 8601 date-time with an offset")
                }
                dueAt = seconds
            case (nil, let text?):
                guard let duration = DurationText.parse(text) else {
                    throw fields.fail("due_in", .invalid, "must be a duration such as 14d or 2h")
                }
                dueAt = event.occurredAt + Double(duration.components.seconds)
            default:
                throw fields.fail(nil, .invalid, "needs `due_at` (a date-time) or `due_in` (a duration), not both")
            }
            let dog = try fields.optionalString("dog_id") ?? event.dogID
            let payload = try fields.optionalObject("payload") ?? [:]
            try fields.finish()
            return .reminderScheduled(
                Reminder(userID: event.userID, dogID: dog, kind: kind, dueAt: dueAt, payload: .object(payload)))
        },
        EffectType("analytics_event") { fields, _, _ throws(FieldError) in
            let name = try fields.string("name")
            let properties = try fields.optionalObject("properties") ?? [:]
            try fields.finish()
            return .analyticsEvent(name: name, properties: properties)
        },
        EffectType("dog_registered", madeBy: "the Dog Journey"),
    ]

    /// Reads an effect a rule produced, filling what the event implies (its dog, its time).
    /// Every field is checked; unknown fields and types are errors naming them.
    public init(
        ruleOutput json: JSON, event: Event, ruleRevision: String, types: EffectTypes = .engine
    ) throws(EffectDecodingError) {
        guard case .object(let object) = json else {
            throw EffectDecodingError("an effect must be an object, got \(json.typeName)")
        }
        var fields = FieldReader(object)
        let type: String
        do {
            type = try fields.string("type")
        } catch {
            throw EffectDecodingError(error, effect: "an")
        }
        guard let effectType = types.named(type) else {
            let names = types.all.map(\.name).filter { $0 != "dog_registered" }
            throw EffectDecodingError("unknown effect type \"\(type)\"; effects: \(names.joined(separator: ", "))")
        }
        guard let decode = effectType.decode else {
            throw EffectDecodingError("\(type) effects come only from \(effectType.madeBy), not from rules")
        }
        do {
            self = try decode(&fields, event, ruleRevision)
        } catch {
            throw EffectDecodingError(error, effect: type)
        }
    }
}
