import Core
import FeatureKit
import RuleEngine

/// The check plugins' rule kinds.
extension RuleKind {
    public static let checkContent = RuleKind(
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
        })

    public static let checkAnswer = RuleKind(
        name: "check_answer",
        summary: "Turns a user's answer to a check into dated records (a plugin's answer rule).",
        inputDescription:
            "{content, answer, dog, block, now_local, records: the block's newest 100 earlier records, oldest first [{kind, recorded_at, payload}]}",
        requiredMembers: [Member("content", .object), Member("answer", .object)], inputIsObject: true,
        outputDescription:
            "{records: [{kind, payload}], complete: boolean, interpretation?: text or {$text: KEY, args}, reminder?: {kind, local_time | after, text}, analytics?}",
        cardinality: .one,
        checkOutput: { output in
            guard case .object(let object) = output else { return "expected an object" }
            guard case .array(let records)? = object["records"],
                records.allSatisfy({ $0["kind"]?.stringValue != nil && $0["payload"]?.objectValue != nil })
            else { return "expected `records`: an array of {kind, payload}" }
            guard object["complete"]?.boolValue != nil else { return "expected `complete`: a boolean" }
            for member in ["interpretation", "reminder"] {
                if let problem = DeferredText.problem(in: object[member] ?? .null) {
                    return "`\(member)`: \(problem)"
                }
            }
            return nil
        })
}
