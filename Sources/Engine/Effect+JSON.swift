import Core
import JQ
import RuleEngine
import Store

extension Effect {
    /// The effect as JSON, as ingest results and stored outcomes show it.
    public var json: JSON {
        var object: JSONObject = ["type": .string(typeName)]
        switch self {
        case .dogRegistered(let dog):
            object["dog"] = dog.json
        case .recordAdded(let record):
            object["dog_id"] = .string(record.dogID)
            object["kind"] = .string(record.kind)
            object["recorded_at"] = .string(record.recordedAtText)
            object["payload"] = record.payload
            object["source"] = .string(record.source)
            object["block_id"] = record.blockID.map(JSON.string) ?? .null
        case .blockStepCompleted(let dog, let block, let step):
            object["dog_id"] = .string(dog)
            object["block_id"] = .string(block)
            object["step"] = .string(step)
        case .onboardingStepCompleted(let flow, let step, let skipped, let duration, let at):
            object["flow"] = .string(flow)
            object["step_id"] = .string(step)
            object["skipped"] = .bool(skipped)
            object["duration_seconds"] = duration.map(JSON.number) ?? .null
            if let at { object["completed_at"] = .string(Timestamp.format(at)) }
        case .onboardingFlowStarted(let flow, let variant, let version):
            object["flow"] = .string(flow)
            object["variant"] = .string(variant)
            object["version"] = .string(version)
        case .onboardingStepShown(let flow, let step, let at):
            object["flow"] = .string(flow)
            object["step_id"] = .string(step)
            if let at { object["shown_at"] = .string(Timestamp.format(at)) }
        case .challengeJoined(let challenge, let team):
            object["challenge_id"] = .string(challenge)
            object["team"] = team.map(JSON.string) ?? .null
        case .challengeGroupCompleted(let challenge):
            object["challenge_id"] = .string(challenge)
        case .habitChanged(let change):
            for (key, value) in change.json.objectValue ?? [:] { object[key] = value }
        case .challengeProgress(let challenge, let delta):
            object["challenge_id"] = .string(challenge)
            object["delta"] = .number(delta)
        case .challengeCompleted(let challenge):
            object["challenge_id"] = .string(challenge)
        case .rewardGranted(let reward, let amount, let badge, let reason):
            object["reward"] = .string(reward)
            object["amount"] = amount.map(JSON.number) ?? .null
            object["badge_id"] = badge.map(JSON.string) ?? .null
            object["reason"] = reason.map(JSON.string) ?? .null
        case .reminderScheduled(let reminder):
            object["kind"] = .string(reminder.kind)
            object["due_at"] = .string(Timestamp.format(reminder.dueAt))
            object["dog_id"] = reminder.dogID.map(JSON.string) ?? .null
            object["payload"] = reminder.payload
        case .analyticsEvent(let name, let properties):
            object["name"] = .string(name)
            object["properties"] = .object(properties)
        case .manifestCreated(let manifest, let hash, _):
            object["dog_id"] = .string(manifest.dogID)
            object["catalog"] = manifest.manifest["catalog"] ?? .null
            object["catalog_hash"] = .string(hash)
            object["recommended_first"] = manifest.manifest["recommended_first"] ?? .null
            object["insights"] = manifest.manifest["insights"] ?? .array([])
            object["notes"] = manifest.manifest["notes"] ?? .array([])
        case .checkAnswered(let dog, let block, let type, let interpretation, let complete):
            object["dog_id"] = .string(dog)
            object["block_id"] = .string(block)
            object["check_type"] = .string(type)
            object["interpretation"] = interpretation.map(JSON.string) ?? .null
            object["complete"] = .bool(complete)
        case .blockCompleted(let dog, let block, let next):
            object["dog_id"] = .string(dog)
            object["block_id"] = .string(block)
            object["next_block"] = next.map(JSON.string) ?? .null
        }
        return .object(object)
    }

    /// Reads an effect a rule produced, filling what the event implies (its dog, its time).
    /// Every field is checked; unknown fields and types are errors naming them.
    ///
    /// Rules may produce every effect but `dog_registered`, which only registration makes.
    public init(ruleOutput json: JSON, event: Event, ruleRevision: String) throws(EffectDecodingError) {
        guard case .object(let object) = json else {
            throw EffectDecodingError("an effect must be an object, got \(json.typeName)")
        }
        var fields = EffectFields(object: object)
        let type = try fields.string("type")
        switch type {
        case "record_added":
            let dog = try fields.optionalString("dog_id") ?? event.dogID
            guard let dog else { throw EffectDecodingError("record_added needs a `dog_id` (the event has none)") }
            let kind = try fields.string("kind")
            let recordedText = try fields.optionalString("recorded_at") ?? event.occurredAtText
            guard let recordedAt = Timestamp.parse(recordedText) else {
                throw EffectDecodingError("record_added `recorded_at` must be an ISO 8601 date-time with an offset")
            }
            let payload = try fields.object("payload")
            let source = try fields.optionalString("source") ?? "app"
            let block = try fields.optionalString("block_id")
            try fields.finish(type)
            self = .recordAdded(
                ProfileRecord(
                    dogID: dog, kind: kind, recordedAt: recordedAt, recordedAtText: recordedText,
                    payload: .object(payload), source: source, ruleRevision: ruleRevision, blockID: block))
        case "block_step_completed":
            let dog = try fields.optionalString("dog_id") ?? event.dogID
            guard let dog else {
                throw EffectDecodingError("block_step_completed needs a `dog_id` (the event has none)")
            }
            let block = try fields.string("block_id")
            let step = try fields.string("step")
            guard ["theory", "check", "action"].contains(step) else {
                throw EffectDecodingError(
                    "block_step_completed `step` must be theory, check or action, got \"\(step)\"")
            }
            try fields.finish(type)
            self = .blockStepCompleted(dogID: dog, blockID: block, step: step)
        case "onboarding_step_completed":
            let flow = try fields.string("flow")
            let step = try fields.string("step_id")
            let skipped = try fields.optionalBool("skipped") ?? false
            let duration = try fields.optionalNumber("duration_seconds")
            try fields.finish(type)
            self = .onboardingStepCompleted(flow: flow, stepID: step, skipped: skipped, durationSeconds: duration)
        case "challenge_progress":
            let challenge = try fields.string("challenge_id")
            let delta = try fields.number("delta")
            guard delta.isFinite, delta >= 0 else {
                throw EffectDecodingError("challenge_progress `delta` must be ≥ 0")
            }
            try fields.finish(type)
            self = .challengeProgress(challengeID: challenge, delta: delta)
        case "challenge_completed":
            let challenge = try fields.string("challenge_id")
            try fields.finish(type)
            self = .challengeCompleted(challengeID: challenge)
        case "reward_granted":
            let reward = try fields.string("reward")
            let amount = try fields.optionalNumber("amount")
            let badge = try fields.optionalString("badge_id")
            let reason = try fields.optionalString("reason")
            switch reward {
            case "xp" where amount != nil && amount! > 0 && badge == nil: break
            case "badge" where badge != nil && amount == nil: break
            default:
                throw EffectDecodingError(
                    "reward_granted is either {reward: xp, amount > 0} or {reward: badge, badge_id}")
            }
            try fields.finish(type)
            self = .rewardGranted(reward: reward, amount: amount, badgeID: badge, reason: reason)
        case "reminder_scheduled":
            let kind = try fields.string("kind")
            let dueAt: Double
            switch (try fields.optionalString("due_at"), try fields.optionalString("due_in")) {
            case (let text?, nil):
                guard let seconds = Timestamp.parse(text) else {
                    throw EffectDecodingError(
                        "reminder_scheduled `due_at` must be an ISO 8601 date-time with an offset")
                }
                dueAt = seconds
            case (nil, let text?):
                guard let duration = DurationText.parse(text) else {
                    throw EffectDecodingError("reminder_scheduled `due_in` must be a duration such as 14d or 2h")
                }
                dueAt = event.occurredAt + Double(duration.components.seconds)
            default:
                throw EffectDecodingError(
                    "reminder_scheduled needs `due_at` (a date-time) or `due_in` (a duration), not both")
            }
            let dog = try fields.optionalString("dog_id") ?? event.dogID
            let payload = try fields.optionalObject("payload") ?? [:]
            try fields.finish(type)
            self = .reminderScheduled(
                Reminder(userID: event.userID, dogID: dog, kind: kind, dueAt: dueAt, payload: .object(payload)))
        case "analytics_event":
            let name = try fields.string("name")
            let properties = try fields.optionalObject("properties") ?? [:]
            try fields.finish(type)
            self = .analyticsEvent(name: name, properties: properties)
        case "dog_registered", "manifest_created", "check_answered", "block_completed":
            throw EffectDecodingError("\(type) effects come only from the Dog Journey, not from rules")
        case "challenge_joined", "challenge_group_completed":
            throw EffectDecodingError("\(type) effects come only from the challenges, not from rules")
        case "habit_changed":
            throw EffectDecodingError("habit_changed effects come only from the habit trackers, not from rules")
        case "onboarding_flow_started", "onboarding_step_shown":
            throw EffectDecodingError("\(type) effects come only from the onboarding engine, not from rules")
        default:
            throw EffectDecodingError(
                "unknown effect type \"\(type)\"; effects: \(Effect.typeNames.filter { $0 != "dog_registered" }.joined(separator: ", "))"
            )
        }
    }
}

/// An effect object a rule produced that the engine cannot use.
public struct EffectDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads the fields of an effect object, remembering which were read so that the rest can
/// be reported as unknown.
private struct EffectFields {
    let object: JSONObject
    /// Names read so far (a handful: a list beats hashing).
    var used: [String] = ["type"]

    mutating func value(_ name: String) -> JSON? {
        used.append(name)
        guard let value = object[name], value != .null else { return nil }
        return value
    }

    mutating func string(_ name: String) throws(EffectDecodingError) -> String {
        guard let text = try optionalString(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return text
    }

    mutating func optionalString(_ name: String) throws(EffectDecodingError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw EffectDecodingError(
                "effect field `\(name)` must be a non-empty string, got \(value.truncatedText(60))")
        }
        return text
    }

    mutating func number(_ name: String) throws(EffectDecodingError) -> Double {
        guard let n = try optionalNumber(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return n
    }

    mutating func optionalNumber(_ name: String) throws(EffectDecodingError) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let n) = value, n.isFinite else {
            throw EffectDecodingError("effect field `\(name)` must be a number, got \(value.truncatedText(60))")
        }
        return n
    }

    mutating func optionalBool(_ name: String) throws(EffectDecodingError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let b) = value else {
            throw EffectDecodingError("effect field `\(name)` must be true or false, got \(value.truncatedText(60))")
        }
        return b
    }

    mutating func object(_ name: String) throws(EffectDecodingError) -> JSONObject {
        guard let object = try optionalObject(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return object
    }

    mutating func optionalObject(_ name: String) throws(EffectDecodingError) -> JSONObject? {
        guard let value = value(name) else { return nil }
        guard case .object(let object) = value else {
            throw EffectDecodingError("effect field `\(name)` must be an object, got \(value.truncatedText(60))")
        }
        return object
    }

    func finish(_ type: String) throws(EffectDecodingError) {
        for (key, _) in object where !used.contains(key) {
            throw EffectDecodingError("unknown field `\(key)` in a \(type) effect")
        }
    }
}
