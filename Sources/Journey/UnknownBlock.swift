import Core
import RuleEngine

/// How the Dog Journey names a block id that is not a block: in a rule's result (inline tests,
/// views) and in what rules and documents write (`journey check`).
enum UnknownBlock {
    /// "block id `x`, which is not a block of <place>; did you mean `y`?" — or, with nothing
    /// close, the blocks there are (the first few).
    static func describe(_ id: String, notIn place: String, known: [String]) -> String {
        var text = "block id `\(id)`, which is not a block of \(place)"
        if let suggestion = closestMatch(to: id, in: known) {
            text += "; did you mean `\(suggestion)`?"
        } else if !known.isEmpty {
            let shown = known.prefix(8).map { "`\($0)`" }.joined(separator: ", ")
            text += "; write one of its blocks: \(shown)\(known.count > 8 ? " (and \(known.count - 8) more)" : "")"
        }
        return text
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
