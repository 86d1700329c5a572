import Core
import FeatureKit
import Store

/// Everything the block flow draws (`GET /v1/dogs/{dog_id}/blocks/{block_id}`): the preview's three
/// lines, the 3–5 theory cards, the check with its type's content and its fallback, the action
/// with its auto-complete offer, the personal line, the status and the steps done. The
/// manifest's `theory` and `check.content` references point here.
extension JourneyViews {
    /// The key of the caption every self_screen carries: «Это наблюдение, не диагноз».
    public static let observationCaptionKey = "journey.check.observation_caption"
    /// The key of the caption of a hands_on check in the health branch.
    public static let vetCaptionKey = "journey.check.vet_caption"
    /// The key of a self_screen's question when its check gives none: «Что больше похоже на Q сейчас?».
    public static let lookLikeKey = "journey.check.look_like"
    /// The key of the preview's start button: «Начать · 4 мин».
    public static let startKey = "journey.preview.start"

    public func block(_ dogID: String, block blockID: String) throws -> JSON {
        let state = try state(dogID)
        let map = state.map
        guard let block = map.block(blockID) else {
            throw JourneyViewError(code: .unknownBlock, message: "\(map.dog.name)'s journey has no block `\(blockID)`")
        }
        var view = blockCard(block, state: state)
        view["dog"] = ["id": .string(map.dog.id), "name": .string(map.dog.name)]
        view["next_step"] = .string(nextStep(of: block, state: state))
        view["needs"] = .array(block.needs.map(JSON.string))
        view["finish_first"] = finishFirst(blockID, state: state)
        view["personal_note"] = .string(map.personalLine(block))
        view["preview"] = [
            "text_lines": .array(previewLines(block, map: map).map(JSON.string)),
            "start": .string(start(block)),
        ]
        view["theory"] = .array((block.content["theory"]?.arrayValue ?? []).map(map.render))
        var fallback = ManifestDocument.fallback(map, block, texts: texts)
        if case .object(var object) = fallback, let check = block.fallbackCheck, let type = block.fallbackCheckType {
            object["content_ref"] = nil
            object["content"] = checkContent(check, type: type, of: block, map: map)
            fallback = .object(object)
        }
        view["check"] = [
            "type": .string(block.checkType),
            "content": checkContent(block.content["check"] ?? [:], type: block.checkType, of: block, map: map),
            "fallback": fallback,
        ]
        var action = ManifestDocument.action(map, block).objectValue ?? [:]
        let offer = state.status(of: blockID) == .locked ? nil : try offer(for: block, state: state)
        action["offer"] = offer.map(JSON.string) ?? .null
        view["action"] = .object(action)
        return .object(view)
    }

    /// What you learn, why it matters for this dog (its personal line), the action.
    func previewLines(_ block: JourneyMap.Block, map: JourneyMap) -> [String] {
        [
            map.text(block, "preview", "learn") ?? "", map.personalLine(block),
            map.render(block.action["label"]?.stringValue ?? block.actionType),
        ]
    }

    /// A check of `block` (its own, or its fallback check) as written, rendered with the dog's
    /// name and without its record settings, with what its `type` adds: self_screen's caption;
    /// hands_on's honest "not near — remind me later" (and in the health branch the vet
    /// caption); predict's reference for this dog's breed, revealed after the guess.
    func checkContent(_ check: JSON, type: String, of block: JourneyMap.Block, map: JourneyMap) -> JSON {
        guard case .object(var content) = map.render(check) else { return [:] }
        for key in ["type", "record", "fallback"] { content[key] = nil }
        switch type {
        case "self_screen":
            if content["question"] == nil {
                content["question"] = .string(texts(Self.lookLikeKey, ["name": .text(map.dog.name)]))
            }
            content["options"] = .array(
                (content["options"]?.arrayValue ?? []).map { option in
                    guard case .object(var option) = option else { return option }
                    option["alarming"] = .bool(option["alarming"] == true)
                    return .object(option)
                })
            content["caption"] = .string(texts(Self.observationCaptionKey))
        case "hands_on":
            content["outcomes"] = .array(
                (content["outcomes"]?.arrayValue ?? []).map { outcome in
                    guard case .object(var outcome) = outcome else { return outcome }
                    outcome["marker"] = nil
                    return .object(outcome)
                })
            content["later"] = [
                "id": "later", "label": .string(texts(ManifestDocument.laterKey, ["name": .text(map.dog.name)])),
                "remind_at": check["fallback"]?["remind_at"] ?? "19:00",
            ]
            if block.branch == "health" { content["caption"] = .string(texts(Self.vetCaptionKey)) }
        case "predict":
            // The slider's increment is `increment` in the app's contract (`step` is a block's step).
            if case .object(var slider)? = content["slider"], let increment = slider["step"] {
                slider["step"] = nil
                slider["increment"] = increment
                content["slider"] = .object(slider)
            }
            if case .object(var reference)? = content["reference"] {
                let ranges = reference["ranges"]
                let range = ranges?[map.dog.breed ?? ""] ?? ranges?["default"] ?? .null
                reference["range"] = range
                // The text tells this dog's range, the one the reply names too (issue 42): its
                // `{low}` and `{high}` are the range's ends.
                // Rendered from the text as written, in one pass: a dog named `{low}` stays so.
                if let text = check["reference"]?["text"]?.stringValue, let low = range[0]?.numberValue,
                    let high = range[1]?.numberValue
                {
                    reference["text"] = .string(map.render(text, ["low": .number(low), "high": .number(high)]))
                }
                reference["ranges"] = nil
                reference["revealed"] = "after_guess"
                content["reference"] = .object(reference)
            }
        default:
            break
        }
        return .object(content)
    }
}
