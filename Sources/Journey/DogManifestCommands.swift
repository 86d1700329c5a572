import CommandKit
import Core
import Foundation

/// `journey dog manifest DOG`: the journey map in the product document's shape.
enum DogManifestCommand: DogViewCommand {
    static let view = "manifest"
    static let overview = "The journey map as the app gets it: branches, blocks, checks, actions, personal notes."
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON { try views.manifest(dog) }

    static func text(_ view: JSON) -> String {
        var text = "Manifest of \(view["dog_id"]?.stringValue ?? "") (\(view["age_range"]?.stringValue ?? ""))"
        text += " · recommended first: \(view["recommended_block_id"]?.stringValue ?? "none")\n"
        let statuses = view["statuses"]
        for branch in view["branches"]?.arrayValue ?? [] {
            text += "\n\(branch["title"]?.stringValue ?? "")\n"
            for block in branch["blocks"]?.arrayValue ?? [] {
                let id = block["id"]?.stringValue ?? ""
                let status = statuses?[id]?.stringValue ?? ""
                text +=
                    "  \(status.padding(toLength: 12, withPad: " ", startingAt: 0)) \(block["title"]?.stringValue ?? "") [\(id)]"
                text +=
                    " · \(block["check"]?["type"]?.stringValue ?? "") → \(block["action"]?["type"]?.stringValue ?? "")\n"
                text += "               \(block["personal_note"]?.stringValue ?? "")\n"
            }
        }
        return text
    }
}

/// `journey dog block DOG BLOCK`: everything the block flow draws.
enum DogBlockCommand: DogViewCommand {
    static let view = "block"
    static let overview = "A block's flow: theory cards, the check with its content, the action, the personal line."
    static let target: ArgumentSpec? = ArgumentSpec(name: "block", help: "The block's id.")
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON {
        try views.block(dog, block: target ?? "")
    }

    static func text(_ view: JSON) -> String {
        var text = "\(view["title"]?.stringValue ?? "") — \(view["status"]?.stringValue ?? "")"
        text += " · next: \(view["next_step"]?.stringValue ?? "")\n  \(view["personal_note"]?.stringValue ?? "")\n"
        let locked = (view["finish_first"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        if !locked.isEmpty { text += "  Locked: finish \(locked.joined(separator: " and ")) first\n" }
        text += "\nTheory:\n"
        for (index, card) in (view["theory"]?.arrayValue ?? []).enumerated() {
            text += "  \(index + 1). \(card.stringValue ?? "")\n"
        }
        let check = view["check"]
        let content = check?["content"]
        text += "\nCheck (\(check?["type"]?.stringValue ?? "")): "
        text += "\(content?["question"]?.stringValue ?? content?["instruction"]?.stringValue ?? "")\n"
        for choice in (content?["options"]?.arrayValue ?? []) + (content?["outcomes"]?.arrayValue ?? []) {
            text += "  · \(choice["label"]?.stringValue ?? "")\n"
        }
        if let later = content?["later"]?["label"]?.stringValue { text += "  · \(later)\n" }
        if let slider = content?["slider"], let unit = content?["unit"]?.stringValue {
            let number = { (key: String) in JSON.format(number: slider[key]?.numberValue ?? 0) }
            text += "  slider \(number("min"))–\(number("max")) \(unit)"
            if let range = content?["reference"]?["range"]?.arrayValue, range.count == 2 {
                let bounds = range.map { JSON.format(number: $0.numberValue ?? 0) }
                text += " · typical: \(bounds[0])–\(bounds[1]) (shown after the guess)"
            }
            text += "\n"
        }
        if let caption = content?["caption"]?.stringValue { text += "  \(caption)\n" }
        if let fallback = check?["fallback"]?["text"]?.stringValue { text += "  Not now: \(fallback)\n" }
        text += "\nAction: \(view["action"]?["label"]?.stringValue ?? "")\n"
        if let offer = view["action"]?["offer"]?.stringValue { text += "  \(offer)\n" }
        return text
    }
}
