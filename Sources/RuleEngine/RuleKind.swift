import Core
import JQ

/// The contract a rule fulfils: what its input `.` holds and what it must output.
///
/// Every kind lives in ``RuleKind/registry``; `journey rules --kinds` and the README's kind
/// reference are drawn from it.
public struct RuleKind: Sendable {
    /// How many outputs a rule of this kind may produce.
    public enum Cardinality: Sendable, Equatable {
        /// Exactly one output.
        case one
        /// One output or none; none means `whenEmpty`.
        case atMostOne(whenEmpty: JSON)
        /// Any number of outputs (the result is the list of them).
        case many
    }

    /// A member the input object must have, and the jq type of its value.
    public struct Member: Sendable {
        public var name: String
        public var type: JV.Kind

        public init(_ name: String, _ type: JV.Kind) {
            self.name = name
            self.type = type
        }
    }

    public var name: String
    /// One line on what rules of this kind decide.
    public var summary: String
    /// What `.` holds, in words.
    public var inputDescription: String
    /// Members the input object must have; empty with `inputIsObject == false` means anything.
    public var requiredMembers: [Member]
    public var inputIsObject: Bool
    /// What the output must be, in words.
    public var outputDescription: String
    public var cardinality: Cardinality
    /// Nil when `output` fits the contract, else what is wrong with it.
    public var checkOutput: @Sendable (JSON) -> String?
    /// For kinds whose input is (or holds) an app event: the path of the event's type, so a
    /// rule can name the `events` it reacts to and skip the others without being evaluated.
    public var eventTypePath: [String]? = nil

    /// Nil when `input` fits the contract, else what is wrong with it.
    public func checkInput(_ input: JV) -> String? {
        checkInput(input, keys: requiredMembers.map { JV(JSON.string($0.name)) })
    }

    /// Like ``checkInput(_:)``, with the member names already built as libjq strings.
    func checkInput(_ input: JV, keys: [JV]) -> String? {
        guard inputIsObject else { return nil }
        guard input.kind == .object else {
            return "input must be an object (\(inputDescription)), got \(input.kind.rawValue)"
        }
        for (member, key) in zip(requiredMembers, keys) {
            guard let kind = input.memberKind(key) else {
                return "input has no `\(member.name)` (\(inputDescription))"
            }
            guard kind == member.type else {
                let type = member.type.rawValue
                return "input `.\(member.name)` must be \(article(type)) \(type), got \(kind.rawValue)"
            }
        }
        return nil
    }
}

private func article(_ word: String) -> String {
    word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
}

extension RuleKind {
    /// Every kind, in the order documentation lists them.
    public static let registry: [RuleKind] = [
        RuleKind(
            name: "recommendation",
            summary: "Picks the block to recommend now.",
            inputDescription: "{dog, branches, blocks} with each block's computed status",
            requiredMembers: [Member("dog", .object), Member("blocks", .array)], inputIsObject: true,
            outputDescription: "a block id (string) or null; no output means null",
            cardinality: .atMostOne(whenEmpty: .null),
            checkOutput: { output in
                switch output {
                case .null: nil
                case .string(let id) where !id.isEmpty: nil
                default: "expected a block id (non-empty string) or null"
                }
            }),
        RuleKind(
            name: "auto_complete",
            summary: "Finds evidence that a block's action is already done; non-empty means credit.",
            inputDescription: "{dog, block, records, events}",
            requiredMembers: [
                Member("dog", .object), Member("block", .object), Member("records", .array),
                Member("events", .array),
            ], inputIsObject: true,
            outputDescription: "an array of evidence records (objects); empty means no credit",
            cardinality: .one,
            checkOutput: { output in
                guard case .array(let records) = output else { return "expected an array of evidence records" }
                if let bad = records.firstIndex(where: { $0.objectValue == nil }) {
                    return "expected every evidence record to be an object, element \(bad) is \(records[bad].typeName)"
                }
                return nil
            }),
        RuleKind(
            name: "onboarding_trigger",
            summary: "Decides whether an app event completes the current onboarding step.",
            inputDescription: "{event, step, state}",
            requiredMembers: [Member("event", .object)], inputIsObject: true,
            outputDescription: "a boolean; no output means false",
            cardinality: .atMostOne(whenEmpty: false),
            checkOutput: { $0.boolValue == nil ? "expected a boolean" : nil },
            eventTypePath: ["event", "type"]),
        RuleKind(
            name: "challenge_metric",
            summary: "How much an event contributes to a challenge.",
            inputDescription: "the event as ingested: {event_id, user_id, type, occurred_at, payload}",
            requiredMembers: [Member("type", .string)], inputIsObject: true,
            outputDescription: "a finite number ≥ 0; no output means the event does not count (null)",
            cardinality: .atMostOne(whenEmpty: .null),
            checkOutput: { output in
                guard let n = output.numberValue, n.isFinite, n >= 0 else { return "expected a finite number ≥ 0" }
                return nil
            },
            eventTypePath: ["type"]),
        RuleKind(
            name: "challenge_completion",
            summary: "Whether a participant (or a community's group) has completed a challenge.",
            inputDescription: "{value, target, challenge, event}",
            requiredMembers: [Member("value", .number), Member("target", .number)], inputIsObject: true,
            outputDescription: "a boolean; no output means false",
            cardinality: .atMostOne(whenEmpty: false),
            checkOutput: { $0.boolValue == nil ? "expected a boolean" : nil }),
        RuleKind(
            name: "habit_stat",
            summary: "One statistic of a user's habit trackers.",
            inputDescription: "{trackers, days}: each tracker with its check-in facts, each date with a check-in",
            requiredMembers: [Member("trackers", .array), Member("days", .array)], inputIsObject: true,
            outputDescription: "a finite number",
            cardinality: .one,
            checkOutput: { output in
                guard let n = output.numberValue, n.isFinite else { return "expected a finite number" }
                return nil
            }),
        RuleKind(
            name: "personal_note",
            summary: "Renders a personal note for a dog.",
            inputDescription: "{dog, …}",
            requiredMembers: [Member("dog", .object)], inputIsObject: true,
            outputDescription: "a string",
            cardinality: .one,
            checkOutput: { $0.stringValue == nil ? "expected a string" : nil }),
        RuleKind(
            name: "manifest",
            summary: "Builds a dog's journey map at registration.",
            inputDescription: "{dog, catalog}",
            requiredMembers: [Member("dog", .object), Member("catalog", .object)], inputIsObject: true,
            outputDescription: "an object",
            cardinality: .one,
            checkOutput: { $0.objectValue == nil ? "expected an object" : nil }),
        RuleKind(
            name: "event_effects",
            summary: "What an app event leads to: records, reminders, analytics, rewards.",
            inputDescription: "{event, dog}: the event as ingested, and its dog's profile or null",
            requiredMembers: [Member("event", .object)], inputIsObject: true,
            outputDescription: "an array of effect objects ({type: record_added, …}); no output means none",
            cardinality: .atMostOne(whenEmpty: []),
            checkOutput: { output in
                guard case .array(let effects) = output else { return "expected an array of effect objects" }
                if let bad = effects.firstIndex(where: { $0["type"]?.stringValue == nil }) {
                    return
                        "expected every effect to be an object with a `type`, element \(bad) is \(effects[bad].truncatedText(60))"
                }
                return nil
            },
            eventTypePath: ["event", "type"]),
        RuleKind(
            name: "check_content",
            summary: "Checks a journey block's check content for a check type (a plugin's content rule).",
            inputDescription: "{content}: the check as written in the catalog",
            requiredMembers: [Member("content", .object)], inputIsObject: true,
            outputDescription: "an array of problems (strings); empty means the content is fine",
            cardinality: .one,
            checkOutput: { output in
                guard case .array(let problems) = output, problems.allSatisfy({ $0.stringValue != nil }) else {
                    return "expected an array of problem messages (strings)"
                }
                return nil
            }),
        RuleKind(
            name: "check_answer",
            summary: "Turns a user's answer to a check into dated records (a plugin's answer rule).",
            inputDescription: "{content, answer, dog, block, now_local}",
            requiredMembers: [Member("content", .object), Member("answer", .object)], inputIsObject: true,
            outputDescription:
                "{records: [{kind, payload}], complete: boolean, interpretation?, reminder?, analytics?}",
            cardinality: .one,
            checkOutput: { output in
                guard case .object(let object) = output else { return "expected an object" }
                guard case .array(let records)? = object["records"],
                    records.allSatisfy({ $0["kind"]?.stringValue != nil && $0["payload"]?.objectValue != nil })
                else { return "expected `records`: an array of {kind, payload}" }
                guard object["complete"]?.boolValue != nil else { return "expected `complete`: a boolean" }
                return nil
            }),
        RuleKind(
            name: "value",
            summary: "Any computation; no contract.",
            inputDescription: "anything",
            requiredMembers: [], inputIsObject: false,
            outputDescription: "any values; the result is the list of outputs",
            cardinality: .many,
            checkOutput: { _ in nil }),
    ]

    private static let byName: [String: RuleKind] = Dictionary(
        uniqueKeysWithValues: registry.map { ($0.name, $0) })

    /// The kind called `name`, if registered.
    public static func named(_ name: String) -> RuleKind? { byName[name] }

    /// Checks a candidate result (a test's `expect`) against the contract.
    public func checkResult(_ value: JSON) -> String? {
        if case .atMostOne(let whenEmpty) = cardinality, value == whenEmpty { return nil }
        return checkOutput(value)
    }
}
