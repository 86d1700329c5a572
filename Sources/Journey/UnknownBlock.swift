import Core
import RuleEngine

/// How the Dog Journey names a block id that is not a block: in a rule's result (inline tests,
/// views) and in what rules write (`journey check`).
enum UnknownBlock {
    /// "block id `x`, which is not a block of <place>; did you mean `y`?" — or, with nothing
    /// close, the blocks there are (the first few).
    static func describe(_ id: String, notIn place: String, known: [String]) -> String {
        describeUnknown(id, "block id", notIn: "a block of \(place)", known: known)
    }

    /// The recommendation kind's check of a result against its input: a block id must be the
    /// `id` of one of `.blocks` (null, no recommendation, is always fine).
    static func checkRecommendation(_ output: JSON, input: JSON) -> String? {
        guard case .string(let id) = output else { return nil }
        let known = (input["blocks"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        guard !known.contains(id) else { return nil }
        return describe(id, notIn: "its input (`.blocks[].id`)", known: known)
    }
}
