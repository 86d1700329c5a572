import Core
import Locales

/// The Dog Journey catalog's texts as locale texts. The catalog (`Rules/journey/catalog.yaml`)
/// keeps the structure; each text is a key of the locale files named after its place in the
/// catalog, so that a product manager edits it per locale like any other text:
///
///     journey.catalog.puppy-4-8m.title                       the catalog's title
///     journey.metric.recall.label, journey.metric.recall.bands.low   a metric and its insight texts
///     journey.branch.health.title                            a branch's title
///     journey.block.weight-baseline.title                    a block's field (`preview.learn`, `note`, …)
///     journey.block.weight-baseline.theory.1                 its theory cards, by number
///     journey.block.weight-baseline.check.outcomes.weighed.label    a list item by its `id`
///
/// A view puts the texts of the reader's locale into the catalog when it is built
/// (``localized(_:texts:locale:)``): a key the locale lacks is the default locale's, and a text
/// the catalog still writes in place (a draft) shows when no locale has its key.
public enum CatalogTexts {
    /// The fields of a catalog that hold text (the rest is structure: ids, types, markers,
    /// images, durations, references). A block's `theory` is a list of texts.
    public static let textFields: Set<String> = [
        "title", "learn", "why", "instruction", "question", "measure", "text", "label", "interpretation", "note",
    ]
    /// The containers that hold only texts: a key may create them in a structure-only block.
    static let textContainers: Set<String> = ["preview", "theory", "bands"]
    /// The most theory cards a key may number.
    static let theoryLimit = 20

    /// The key of a block's text at `path` (`check.outcomes.weighed.label`).
    public static func blockKey(_ block: String, _ path: String) -> String { "journey.block.\(block).\(path)" }
    /// The key of a branch's title.
    public static func branchKey(_ branch: String) -> String { "journey.branch.\(branch).title" }
    /// The key of a metric's `label` or `bands.<band>`.
    public static func metricKey(_ metric: String, _ path: String) -> String { "journey.metric.\(metric).\(path)" }
    /// The key of a catalog's title.
    public static func catalogKey(_ catalog: String) -> String { "journey.catalog.\(catalog).title" }

    /// `catalog` (a catalog document as JSON) with the texts of `locale` in place; a key the
    /// locale lacks has the default locale's text, and a text no locale has stays as written.
    public static func localized(_ catalog: JSON, texts: TextCatalog, locale: String) -> JSON {
        var result = catalog
        let chosen = texts.locales.first { $0.locale == locale }
        if let fallback = texts.locales.first, fallback.locale != chosen?.locale {
            _ = overlay(&result, fallback)
        }
        if let chosen { _ = overlay(&result, chosen) }
        return compacted(result)
    }

    /// Puts every catalog text of `locale` into `catalog`; returns the keys of the catalog's
    /// kinds (`journey.block.…`, `journey.branch.…`, `journey.metric.…`, `journey.catalog.…`)
    /// that name no place in it (a block, outcome or field it does not have).
    @discardableResult
    static func overlay(_ catalog: inout JSON, _ locale: LocaleTexts) -> [String] {
        guard case .object(var root) = catalog else { return [] }
        let catalogID = root["catalog"]?.stringValue ?? ""
        var branches = root["branches"]?.arrayValue ?? []
        var blockIndex: [String: (branch: Int, block: Int)] = [:]
        var branchIndex: [String: Int] = [:]
        for (b, branch) in branches.enumerated() {
            if let id = branch["id"]?.stringValue { branchIndex[id] = b }
            for (k, block) in (branch["blocks"]?.arrayValue ?? []).enumerated() {
                if let id = block["id"]?.stringValue { blockIndex[id] = (b, k) }
            }
        }
        var metrics = root["metrics"] ?? [:]
        var unplaced: [String] = []
        for (key, text) in locale.texts where key.hasPrefix("journey.") {
            let parts = key.split(separator: ".").map(String.init)
            guard parts.count >= 4 else { continue }
            let source = text.message.source
            switch parts[1] {
            case "catalog":
                guard parts[2] == catalogID, parts.count == 4, parts[3] == "title" else {
                    unplaced.append(key)
                    continue
                }
                root["title"] = .string(source)
            case "branch":
                guard let b = branchIndex[parts[2]], parts.count == 4, parts[3] == "title",
                    case .object(var branch) = branches[b]
                else {
                    unplaced.append(key)
                    continue
                }
                branch["title"] = .string(source)
                branches[b] = .object(branch)
            case "metric":
                guard case .object(var all) = metrics, var metric = all[parts[2]],
                    place(source, at: parts[3...], in: &metric)
                else {
                    unplaced.append(key)
                    continue
                }
                all[parts[2]] = metric
                metrics = .object(all)
            case "block":
                guard let (b, k) = blockIndex[parts[2]], case .object(var branch) = branches[b],
                    case .array(var blocks)? = branch["blocks"], place(source, at: parts[3...], in: &blocks[k])
                else {
                    unplaced.append(key)
                    continue
                }
                branch["blocks"] = .array(blocks)
                branches[b] = .object(branch)
            default:
                continue
            }
        }
        if !branches.isEmpty { root["branches"] = .array(branches) }
        if root["metrics"] != nil { root["metrics"] = metrics }
        catalog = .object(root)
        return unplaced
    }

    /// Puts `text` at `path` in `node`: an object's member, a list item by its `id`, a theory
    /// card by its number. Creates only what holds texts alone (`preview`, `theory`, a metric's `bands`); false
    /// when the path names nothing the node has.
    private static func place(
        _ text: String, at path: ArraySlice<String>, in node: inout JSON, inTextContainer: Bool = false
    ) -> Bool {
        guard let segment = path.first else { return false }
        let rest = path.dropFirst()
        switch node {
        case .object(var object):
            if rest.isEmpty {
                guard textFields.contains(segment) || inTextContainer else { return false }
                object[segment] = .string(text)
                node = .object(object)
                return true
            }
            var child = object[segment] ?? .null
            if child == .null {
                guard textContainers.contains(segment) else { return false }
                child = segment == "theory" ? .array([]) : .object([:])
            }
            guard place(text, at: rest, in: &child, inTextContainer: textContainers.contains(segment)) else {
                return false
            }
            object[segment] = child
            node = .object(object)
            return true
        case .array(var items):
            if let number = Int(segment), rest.isEmpty {
                guard number >= 1, number <= theoryLimit, !items.contains(where: { $0["id"] != nil }) else {
                    return false
                }
                while items.count < number { items.append(.null) }
                items[number - 1] = .string(text)
                node = .array(items)
                return true
            }
            guard let index = items.firstIndex(where: { $0["id"]?.stringValue == segment }),
                place(text, at: rest, in: &items[index])
            else { return false }
            node = .array(items)
            return true
        default:
            return false
        }
    }

    /// Every text of a (localized) block: its text fields and theory cards, at any depth.
    static func texts(in value: JSON, field: String? = nil) -> [String] {
        switch value {
        case .string(let text): return field.map { textFields.contains($0) || $0 == "theory" } == true ? [text] : []
        case .array(let items): return items.flatMap { texts(in: $0, field: field) }
        case .object(let object): return object.keys.flatMap { texts(in: object[$0]!, field: $0) }
        default: return []
        }
    }

    /// The theory lists without the numbers no locale filled (`theory.1`, `theory.3`: two cards).
    private static func compacted(_ catalog: JSON) -> JSON {
        guard case .object(var root) = catalog, case .array(var branches)? = root["branches"] else { return catalog }
        for b in branches.indices {
            guard case .object(var branch) = branches[b], case .array(var blocks)? = branch["blocks"] else { continue }
            for k in blocks.indices {
                guard case .object(var block) = blocks[k], case .array(let cards)? = block["theory"],
                    cards.contains(.null)
                else { continue }
                block["theory"] = .array(cards.filter { $0 != .null })
                blocks[k] = .object(block)
            }
            branch["blocks"] = .array(blocks)
            branches[b] = .object(branch)
        }
        root["branches"] = .array(branches)
        return .object(root)
    }
}
