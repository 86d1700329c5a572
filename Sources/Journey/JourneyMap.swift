import Core
import FeatureKit
import Foundation
import JQ
import Locales
import Store

/// One dog's journey: its manifest (the branches and blocks it got at registration) joined with
/// the catalog content the manifest was built from, in one locale. Texts are rendered with the
/// dog's name in the locale's digits.
public struct JourneyMap: Sendable {
    public let dog: DogProfile
    public let manifest: StoredManifest
    public let branches: [Branch]
    /// The catalog's metrics with their labels and insight texts by band.
    public let metrics: JSON
    /// The texts the map is written in: its locale's catalog texts, personal notes and numbers.
    public let texts: RequestTexts
    private let rules: LocaleRules

    public struct Branch: Sendable {
        public var id: String
        public var title: String
        public var order: Int
        public var blocks: [Block]
    }

    public struct Block: Sendable {
        public var id: String
        public var title: String
        public var branch: String
        public var topic: String
        public var needs: [String]
        public var minutes: Int
        public var position: Int
        public var checkType: String
        /// `{type, label, auto_complete?, course_id?}`
        public var action: JSON
        /// The block as written in the catalog: preview, theory, check, reminder, note.
        public var content: JSON
        /// The dog's line on this block in the map's locale, kept at registration as a key with
        /// its arguments («Самоконтроль 22 — самая слабая метрика Q»; a manifest stored before
        /// notes were keys keeps its English text); nil in manifests stored before notes
        /// existed, or without the metric.
        public var personalNote: String?

        public var actionType: String { action["type"]?.stringValue ?? "" }
        public var autoCompleteRule: String? { action["auto_complete"]?.stringValue }
        public var courseID: String? { action["course_id"]?.stringValue }

        /// Where the overview map draws the block: one vertical line per branch (`order`),
        /// 100 apart, every second block shifted 24 to the right, 80 between blocks.
        public func coordinates(branchOrder: Int) -> (x: Double, y: Double) {
            (Double(branchOrder - 1) * 100 + (position % 2 == 0 ? 24 : 0), Double(position - 1) * 80)
        }
    }

    /// Joins `manifest` with `catalog` (the snapshot it refers to, with the texts of `texts`'
    /// locale in place: ``CatalogTexts/localized(_:texts:locale:)``). Titles are the catalog's,
    /// else the manifest's (written at registration).
    public init(dog: DogProfile, manifest: StoredManifest, catalog: JSON, texts: RequestTexts) {
        self.dog = dog
        self.manifest = manifest
        self.texts = texts
        rules = texts.rules
        metrics = catalog["metrics"] ?? [:]
        var content: [String: JSON] = [:]
        var branchTitles: [String: String] = [:]
        for branch in catalog["branches"]?.arrayValue ?? [] {
            if let id = branch["id"]?.stringValue, let title = branch["title"]?.stringValue { branchTitles[id] = title }
            for block in branch["blocks"]?.arrayValue ?? [] {
                if let id = block["id"]?.stringValue { content[id] = block }
            }
        }
        branches = (manifest.manifest["branches"]?.arrayValue ?? []).map { branch in
            let id = branch["id"]?.stringValue ?? ""
            return Branch(
                id: id, title: branchTitles[id] ?? branch["title"]?.stringValue ?? id,
                order: Int(branch["order"]?.numberValue ?? 0),
                blocks: (branch["blocks"]?.arrayValue ?? []).map { block in
                    let blockID = block["id"]?.stringValue ?? ""
                    return Block(
                        id: blockID,
                        title: content[blockID]?["title"]?.stringValue ?? block["title"]?.stringValue ?? blockID,
                        branch: id,
                        topic: block["topic"]?.stringValue ?? "",
                        needs: (block["needs"]?.arrayValue ?? []).compactMap(\.stringValue),
                        minutes: Int(block["minutes"]?.numberValue ?? 0),
                        position: Int(block["position"]?.numberValue ?? 0),
                        checkType: block["check_type"]?.stringValue ?? "",
                        action: Self.action(block["action"], label: content[blockID]?["action"]?["label"]),
                        content: content[blockID] ?? [:],
                        personalNote: Self.note(block["personal_note"], texts: texts))
                })
        }
    }

    /// A personal note as kept: a key with its arguments (``DeferredText``) written in `texts`'
    /// locale, or a text (manifests stored before notes were keys).
    static func note(_ kept: JSON?, texts: RequestTexts) -> String? {
        guard let kept, kept != .null else { return nil }
        return DeferredText.rendered(kept, texts: texts).stringValue
    }

    /// The manifest's action with the catalog's label (a locale text) when it has one.
    static func action(_ stored: JSON?, label: JSON?) -> JSON {
        guard case .object(var action) = stored ?? [:] else { return stored ?? [:] }
        if let label, label.stringValue != nil { action["label"] = label }
        return .object(action)
    }

    /// Every block, in path order (branch by branch).
    public var blocks: [Block] { branches.flatMap(\.blocks) }

    /// The block `id`.
    public func block(_ id: String) -> Block? {
        for branch in branches {
            if let block = branch.blocks.first(where: { $0.id == id }) { return block }
        }
        return nil
    }

    public func branch(_ id: String) -> Branch? {
        branches.first { $0.id == id }
    }

    /// `text` (a catalog text) with `{name}` the dog's name and `arguments` in place, in one
    /// pass through the locale's formatter (numbers in its digits: «8 500», "8,500"; a name
    /// that reads `{value}` stays as it is). A text that is no valid message (a draft's lone
    /// `{`) only gets the name.
    public func render(_ text: String, _ arguments: [String: TextArgument] = [:]) -> String {
        guard Self.mayHavePlaceholders(text) else { return text }
        guard let message = Message.parsed(text) else {
            return text.replacingOccurrences(of: "{name}", with: dog.name)
        }
        var arguments = arguments
        arguments["name"] = .text(dog.name)
        return message.render(arguments, rules: rules)
    }

    /// Whether `text` has a `{` or `'` (what a message's placeholders and quotes start with),
    /// found with `memchr`: a long text without them (most theory cards) is returned as it is
    /// at the cost of a byte scan, whatever its script (Cyrillic takes twice the bytes).
    static func mayHavePlaceholders(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(UInt8(ascii: "{")), bytes.count) != nil
                || memchr(base, Int32(UInt8(ascii: "'")), bytes.count) != nil
        }
    }

    /// `value` with `{name}` replaced in every string inside it.
    public func render(_ value: JSON) -> JSON {
        switch value {
        case .string(let text): .string(render(text))
        case .array(let items): .array(items.map(render))
        case .object(let object): .object(JSONObject(object.map { ($0.key, render($0.value)) }))
        default: value
        }
    }

    /// A text of a block's content (`preview.learn`, `note`, …), rendered.
    public func text(_ block: Block, _ path: String...) -> String? {
        var value: JSON? = block.content
        for key in path { value = value?[key] }
        return value?.stringValue.map { render($0) }
    }

    /// The block's personal line for the preview and Today: its note from the manifest, or (in
    /// a manifest without one) the catalog's `preview.why`.
    public func personalLine(_ block: Block) -> String {
        block.personalNote ?? text(block, "preview", "why") ?? ""
    }

    /// The branch order of `block` (1 for the first branch).
    public func order(of block: Block) -> Int {
        branch(block.branch)?.order ?? 0
    }

    /// The insight cards kept with the dog, their texts in the catalog's locale: a metric's
    /// `label` and its band's text (with `{name}` and `{value}`), the first block's title and
    /// personal line (a key, written when shown). A text the catalog lacks stays as kept at
    /// registration (a key with its arguments, written when shown; text in manifests kept before).
    public var insights: [JSON] {
        (manifest.manifest["insights"]?.arrayValue ?? []).map { card in
            guard case .object(var object) = card else { return card }
            if let metric = object["metric"]?.stringValue, let info = metrics[metric] {
                if let label = info["label"]?.stringValue { object["label"] = .string(label) }
                if let band = object["band"]?.stringValue, let text = info["bands"]?[band]?.stringValue {
                    let value = object["value"]?.numberValue.map(TextArgument.number)
                    object["text"] = .string(render(text, value.map { ["value": $0] } ?? [:]))
                }
            } else if let id = object["block_id"]?.stringValue, let block = block(id) {
                object["text"] = firstBlockLine(block)
            }
            return .object(object)
        }
    }

    /// The first block's insight line, «{title}: {why}», as a key written when shown.
    func firstBlockLine(_ block: Block) -> JSON {
        DeferredText.json(
            ManifestBuilder.recommendedFirstTextKey,
            ["title": .string(block.title), "why": .string(text(block, "preview", "why") ?? "")])
    }

    /// The block recommended at registration (`recommended_block_id`; `recommended_first` in
    /// manifests stored before it), if the journey has it.
    public var recommendedBlockID: String? {
        let stored = manifest.manifest["recommended_block_id"] ?? manifest.manifest["recommended_first"]
        return stored?.stringValue.flatMap { block($0) == nil ? nil : $0 }
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
