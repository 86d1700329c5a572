import CheckPlugins
import Core
import FeatureKit
import JQ
import RuleEngine
import YAML

/// Reads `catalog:` documents (`Rules/journey/catalog.yaml`) and checks them against the rule
/// set: structure, `needs` (existing, earlier, no cycles), topics, each check against its
/// plugin, auto-complete rules, reminders, and the wording rules.
public struct CatalogDocumentKind: DocumentKind {
    public let key = "catalog"
    /// Check plugins written in Swift (those declared in `Plugins/` come with the rule set).
    public let swiftPlugins: [any CheckPlugin]

    public init(swiftPlugins: [any CheckPlugin] = []) {
        self.swiftPlugins = swiftPlugins
    }

    static let blockFields = [
        "id", "title", "topic", "needs", "minutes", "preview", "theory", "check", "action", "reminder", "note",
    ]

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard
            let fields = file.fields(
                root, what: "catalog",
                allowed: ["catalog", "title", "age_ranges", "preview_line_limit", "metrics", "branches"])
        else { return nil }
        var prose = CatalogTextCollector(file: file)
        if let (limit, _) = fields.integer("preview_line_limit", within: Catalog.previewLineLimits) {
            prose.previewLineLimit = limit
        }
        guard let id = fields.identifier("catalog", required: true)?.value,
            case let title = fields.string("title")?.value ?? id
        else { return nil }
        var ranges: [AgeRange] = []
        if let node = fields.values["age_ranges"], let items = node.items, !items.isEmpty {
            for item in items {
                guard let text = item.scalar?.value, let range = AgeRange(text) else {
                    file.error("invalid_value", "age ranges look like 4-8m, 1-3y or 7y+", at: file.location(item))
                    continue
                }
                ranges.append(range)
            }
        } else {
            fields.missing("age_ranges", "list the age ranges whose dogs get this catalog, e.g. [4-8m]")
        }
        let metrics = decodeMetrics(fields.values["metrics"], file: file, prose: &prose)
        if fields.values["metrics"] == nil { fields.missing("metrics") }
        var branches: [Catalog.Branch] = []
        if let node = fields.values["branches"], let items = node.items {
            for item in items {
                if let branch = decodeBranch(item, file: file, prose: &prose) { branches.append(branch) }
            }
        } else {
            fields.missing("branches")
        }
        guard let json = file.json(root) else { return nil }
        let text = json.compactText
        let catalog = Catalog(
            id: id, title: title, ageRanges: ranges, metrics: metrics, branches: branches, location: fields.start,
            json: json, text: text, hash: SHA256.hex(text), outline: Self.outline(json), texts: prose.texts,
            previewLineLimit: prose.previewLineLimit)
        return DecodedDocument(value: catalog)
    }

    private func decodeMetrics(_ node: YAMLNode?, file: DocumentFile, prose: inout CatalogTextCollector) -> [Catalog
        .Metric]
    {
        guard let node else { return [] }
        guard let pairs = node.pairs else {
            file.error(
                "invalid_type", "`metrics` maps each portrait metric to its label and bands", at: file.location(node))
            return []
        }
        var metrics: [Catalog.Metric] = []
        for pair in pairs {
            guard let key = pair.key.scalar?.value,
                let fields = file.fields(pair.value, what: "metric", allowed: ["label", "bands"])
            else { continue }
            // The label and the bands are locale texts (journey.metric.<metric>.label, .bands.<band>),
            // or written in place (a draft); `journey check` wants them in every locale.
            let label = fields.string("label")?.value ?? key
            var bands: [String: String] = [:]
            if let node = fields.values["bands"],
                let bandFields = file.fields(node, what: "bands", allowed: ["low", "mid", "high"])
            {
                for band in ["low", "mid", "high"] {
                    if let (text, textNode) = bandFields.string(band) {
                        bands[band] = text
                        prose.add(text, at: file.location(textNode), branch: nil, block: nil)
                    }
                }
            }
            metrics.append(Catalog.Metric(key: key, label: label, bands: bands, location: fields.start))
        }
        return metrics
    }

    private func decodeBranch(_ node: YAMLNode, file: DocumentFile, prose: inout CatalogTextCollector) -> Catalog
        .Branch?
    {
        guard let fields = file.fields(node, what: "branch", allowed: ["id", "title", "blocks"]),
            let id = fields.identifier("id", required: true)?.value,
            case let title = fields.string("title")?.value ?? id
        else { return nil }
        if fields.has("title") { prose.add(title, at: fields.start, branch: id, block: nil) }
        guard let items = fields.values["blocks"]?.items, !items.isEmpty else {
            fields.missing("blocks", "a branch lists its blocks in path order")
            return nil
        }
        let blocks = items.compactMap { decodeBlock($0, branch: id, file: file, prose: &prose) }
        return Catalog.Branch(id: id, title: title, blocks: blocks, location: fields.start)
    }

    private func decodeBlock(_ node: YAMLNode, branch: String, file: DocumentFile, prose: inout CatalogTextCollector)
        -> Catalog
        .Block?
    {
        guard let fields = file.fields(node, what: "block", allowed: Self.blockFields),
            let id = fields.identifier("id", required: true)?.value
        else { return nil }
        // Every text of the block, for the wording rules.
        prose.collect(node, file: file, branch: branch, block: id)
        let title = fields.string("title")?.value ?? id
        let topic = fields.string("topic", required: true)?.value
        let needs = (fields.values["needs"]?.items ?? []).compactMap(\.scalar?.value)
        if let node = fields.values["needs"], node.items == nil {
            file.error("invalid_type", "`needs` must be a list of block ids", at: file.location(node))
        }
        var minutes = 0
        let range = Catalog.blockMinutes
        if case .number(let n)? = fields.json("minutes"), n == n.rounded(),
            n >= Double(range.lowerBound), n <= Double(range.upperBound)
        {
            minutes = Int(n)
        } else {
            file.error(
                "invalid_value",
                "block `\(id)`: `minutes` must be a whole number of minutes from \(range.lowerBound) to \(range.upperBound) (a block takes \(range.lowerBound)–\(range.upperBound) minutes; a longer one is two blocks)",
                at: fields.values["minutes"].map(file.location) ?? fields.start)
        }
        // The texts (title, preview, theory, note, labels) are locale texts, checked with the
        // locale files (``CatalogTextChecks``); the structure is required here.
        for required in ["check", "action"] where !fields.has(required) {
            fields.missing(required)
        }
        if let node = fields.values["theory"] {
            let cards = node.items ?? []
            if cards.count < 3 || cards.count > 5 || cards.contains(where: { $0.scalar == nil }) {
                file.error("invalid_value", "`theory` must list 3 to 5 cards of text", at: file.location(node))
            }
            let range = TheoryCard.sentences
            for (index, card) in cards.enumerated() {
                guard let text = card.scalar?.value else { continue }
                let count = TheoryCard.sentenceCount(text)
                if !range.contains(count) {
                    file.error(
                        "invalid_value",
                        "block `\(id)`: theory card \(index + 1) has \(count) sentence\(count == 1 ? "" : "s"); a card holds \(range.lowerBound) to \(range.upperBound), one idea (split a longer one into two cards)",
                        at: file.location(card))
                }
            }
        }
        if let node = fields.values["preview"],
            let preview = file.fields(node, what: "preview", allowed: ["learn", "why"])
        {
            for key in ["learn", "why"] {
                if let line = preview.string(key) {
                    checkPreviewLine(
                        line, field: "preview.\(key)", block: id, limit: prose.previewLineLimit, file: file)
                }
            }
        }
        // A check that cannot be JSON is reported once, by the conversion of the whole catalog.
        let check = fields.values["check"].flatMap { try? $0.json() }
        guard let checkNode = fields.values["check"], let actionNode = fields.values["action"], let check,
            let checkType = check["type"]?.stringValue
        else {
            if let node = fields.values["check"], check != nil {
                file.error("missing_field", "a check needs a `type` (its plugin)", at: file.location(node))
            }
            return nil
        }
        guard
            let action = file.fields(
                actionNode, what: "action", allowed: ["type", "label", "auto_complete", "course_id"]),
            let actionType = action.string("type", required: true)
        else { return nil }
        if let label = action.string("label") {
            checkPreviewLine(
                label, field: "action.label", block: id, limit: prose.previewLineLimit, file: file)
        }
        if !Catalog.actionTypes.contains(actionType.value) {
            file.error(
                "invalid_value",
                "unknown action `\(actionType.value)`; actions: \(Catalog.actionTypes.joined(separator: ", "))",
                at: action.location(actionType.node))
        }
        let courseID = action.string("course_id")?.value
        if (actionType.value == "start_course") != (courseID != nil) {
            file.error(
                "invalid_value", "`course_id` goes with start_course actions, and only with them", at: action.start)
        }
        var reminderBlock: String?
        if let node = fields.values["reminder"],
            let reminder = file.fields(node, what: "reminder", allowed: ["after", "kind", "text", "block"])
        {
            _ = reminder.duration("after", within: .seconds(60)...(.seconds(365 * 86_400)))
            if !reminder.has("after") { reminder.missing("after") }
            _ = reminder.string("kind", required: true)
            _ = reminder.string("text")
            reminderBlock = reminder.string("block")?.value
        }
        // A block with a wrong `minutes` (told above) is kept, so that the checks of the rest
        // of the catalog (its needs, its wording) still run on it.
        guard let topic else { return nil }
        return Catalog.Block(
            id: id, title: title, topic: topic, needs: needs, minutes: minutes, checkType: checkType, check: check,
            actionType: actionType.value, autoComplete: action.string("auto_complete")?.value, courseID: courseID,
            reminderBlock: reminderBlock, location: fields.start, checkLocation: file.location(checkNode),
            actionLocation: action.start)
    }

    /// A preview line (`preview.learn`, `preview.why`, `action.label`) fits one line of the
    /// three-line preview: at most `limit` characters as written (the catalog's
    /// `preview_line_limit`, else ``Catalog/previewLineLimit``).
    private func checkPreviewLine(
        _ line: (value: String, node: YAMLNode), field: String, block: String, limit: Int, file: DocumentFile
    ) {
        let length = line.value.count
        guard length > limit else { return }
        file.error(
            "invalid_value",
            "block `\(block)`: `\(field)` is \(length) characters long; a preview line fits at most \(limit) (the preview has three lines: move the rest into the theory)",
            at: file.location(line.node))
    }

    /// The catalog without the blocks' prose.
    static func outline(_ json: JSON) -> JSON {
        guard case .object(var root) = json, case .array(let branches)? = root["branches"] else { return json }
        root["branches"] = .array(
            branches.map { branch in
                guard case .object(var object) = branch, case .array(let blocks)? = object["blocks"] else {
                    return branch
                }
                object["blocks"] = .array(
                    blocks.map { block in
                        guard case .object(var fields) = block else { return block }
                        for prose in ["preview", "theory", "reminder", "note"] { fields[prose] = nil }
                        if let type = block["check"]?["type"] { fields["check"] = ["type": type] }
                        return .object(fields)
                    })
                return .object(object)
            })
        return .object(root)
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        let registry = CheckPluginRegistry(ruleSet: context.ruleSet, swiftPlugins: swiftPlugins)
        let catalogs = documents.compactMap { $0.value as? Catalog }
        let locales = LocaleDocument.merged(context.documents(of: LocaleDocument.self))
        let localized = catalogs.map { LocalizedCatalog.all($0, locales: locales) }
        // A key of the catalogs' kinds that no catalog has a place for.
        if let first = localized.first {
            for (index, version) in first.enumerated() {
                for key in version.unplaced.sorted()
                where localized.allSatisfy({ $0[index].unplaced.contains(key) }) {
                    guard let place = version.place(key) else { continue }
                    context.error(
                        "unknown_text_key",
                        "`\(key)` names nothing in the catalogs: no such block, branch, metric, list item (by `id`) or text field",
                        at: place)
                }
            }
        }
        LiteralReferenceChecks(catalogs: catalogs, registry: registry, context: context).run()
        ParameterReferenceChecks(catalogs: catalogs, context: context).run()
        var seen: [String: SourceLocation] = [:]
        for case let catalog as Catalog in documents.map(\.value) {
            if let first = seen[catalog.id] {
                context.error(
                    "duplicate_catalog", "catalog `\(catalog.id)` is already defined at \(first)", at: catalog.location)
            }
            seen[catalog.id] = catalog.location
            let versions = localized[catalogs.firstIndex { $0.location == catalog.location } ?? 0]
            CatalogChecks(catalog: catalog, context: context, registry: registry, localized: versions).run()
            CatalogTextChecks(catalog: catalog, localized: versions, context: context).run()
        }
    }
}

/// Collects the texts of a catalog with their places.
struct CatalogTextCollector {
    let file: DocumentFile
    var texts: [Catalog.Text] = []
    /// The longest line of a block's preview, in characters.
    var previewLineLimit = Catalog.previewLineLimit

    init(file: DocumentFile) {
        self.file = file
    }

    mutating func add(_ text: String, at location: SourceLocation, branch: String?, block: String?) {
        texts.append(Catalog.Text(text: text, location: location, branch: branch, block: block))
    }

    /// Every scalar under `node` that reads as prose (has a space).
    mutating func collect(_ node: YAMLNode, file: DocumentFile, branch: String?, block: String?) {
        switch node.content {
        case .scalar(let scalar):
            if scalar.value.contains(" ") { add(scalar.value, at: file.location(node), branch: branch, block: block) }
        case .sequence(let items):
            for item in items { collect(item, file: file, branch: branch, block: block) }
        case .mapping(let pairs):
            for pair in pairs { collect(pair.value, file: file, branch: branch, block: block) }
        }
    }
}
