import Core
import FeatureKit
import RuleEngine

/// The Dog Journey's rule kinds.
extension RuleKind {
    public static let recommendation = RuleKind(
        name: "recommendation",
        summary: "Picks the block to recommend now.",
        inputDescription: "{dog, branches, blocks} with each block's computed status",
        requiredMembers: [Member("dog", .object), Member("blocks", .array)], inputIsObject: true,
        outputDescription: "a block id of `.blocks` (string) or null; no output means null",
        cardinality: .atMostOne(whenEmpty: .null),
        checkOutput: { output in
            switch output {
            case .null: nil
            case .string(let id) where !id.isEmpty: nil
            default: "expected a block id (non-empty string) or null"
            }
        },
        checkOutputAgainstInput: UnknownBlock.checkRecommendation)

    public static let autoComplete = RuleKind(
        name: "auto_complete",
        summary: "Finds evidence that a block's action is already done; non-empty means credit.",
        inputDescription:
            "{dog, block, records, events}: the block ({id, action, unlocked_ts: when the last block it needs was completed, in seconds, or null}), the dog's newest 100 records of each kind (oldest first) and its newest 200 events (newest first)",
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
        },
        selectableInputs: [AutoComplete.recordList, AutoComplete.eventList],
        acceptsOutput: { $0.isArray(of: .object) })

    public static let personalNote = RuleKind(
        name: "personal_note",
        summary: "Renders a personal note for a dog.",
        inputDescription: "{dog, …}",
        requiredMembers: [Member("dog", .object)], inputIsObject: true,
        outputDescription: "a locale text's key with its arguments ({\"$text\": KEY, \"args\": {…}}), or a string",
        cardinality: .one,
        checkOutput: { output in
            if output.stringValue != nil { return nil }
            guard output.objectValue?[DeferredText.marker] != nil else {
                return "expected a locale text {\"$text\": KEY, \"args\": {…}} (or a string)"
            }
            return DeferredText.problem(in: output)
        })

    public static let manifest = RuleKind(
        name: "manifest",
        summary: "Builds a dog's journey map at registration.",
        inputDescription: "{dog, catalog}",
        requiredMembers: [Member("dog", .object), Member("catalog", .object)], inputIsObject: true,
        outputDescription: "an object",
        cardinality: .one,
        checkOutput: { $0.objectValue == nil ? "expected an object" : DeferredText.problem(in: $0) })
}
