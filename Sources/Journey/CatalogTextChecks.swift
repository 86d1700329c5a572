import CheckPlugins
import Core
import FeatureKit
import RuleEngine

/// A catalog with the texts of one locale in place (its own keys only, no fallback), or as
/// written when the rule set has no locale files.
struct LocalizedCatalog {
    /// The locale's files joined; nil for the catalog as written.
    var locale: LocaleDocument?
    var json: JSON
    /// The locale's keys of the catalog's kinds that name no place in the catalog.
    var unplaced: [String]

    /// One per locale (the default first), or the catalog as written when there are none.
    static func all(_ catalog: Catalog, locales: [LocaleDocument]) -> [LocalizedCatalog] {
        guard !locales.isEmpty else { return [LocalizedCatalog(locale: nil, json: catalog.json, unplaced: [])] }
        return locales.map { locale in
            var json = catalog.json
            let unplaced = CatalogTexts.overlay(&json, locale.texts)
            return LocalizedCatalog(locale: locale, json: json, unplaced: unplaced)
        }
    }

    /// `journey.block.<id>.<path>` … where a key's text is written, else nil.
    func place(_ key: String) -> SourceLocation? { locale?.places[key] }

    /// The block `id` as localized.
    func block(_ id: String) -> JSON? {
        for branch in json["branches"]?.arrayValue ?? [] {
            if let block = branch["blocks"]?.arrayValue?.first(where: { $0["id"]?.stringValue == id }) { return block }
        }
        return nil
    }
}

/// The checks of a catalog's texts in every locale, each at its file:line:col: every text a
/// block, branch and metric shows is there (at the catalog's element that shows it), theory cards
/// and preview lines keep their size (at the locale file's line), and no key of the catalog's
/// kinds names a place the catalogs lack.
struct CatalogTextChecks {
    let catalog: Catalog
    let localized: [LocalizedCatalog]
    let context: DocumentCheckContext

    func run() {
        for version in localized {
            checkPresent(version)
            if let locale = version.locale { checkSizes(version, locale: locale) }
        }
    }

    /// "has no `ru` text for `title` (journey.block.x.title)" or, without locale files, "has no `title`".
    private func missing(
        _ version: LocalizedCatalog, _ what: String, key: String, _ subject: String, at: SourceLocation
    ) {
        if let locale = version.locale {
            context.error(
                "missing_text",
                "catalog `\(catalog.id)`: \(subject) has no `\(locale.texts.locale)` text for `\(what)`: give `\(key)` in a `locale: \(locale.texts.locale)` file (Rules/locales/journey/\(locale.texts.locale).yaml)",
                at: at)
        } else {
            context.error("missing_field", "catalog `\(catalog.id)`: \(subject) has no `\(what)`", at: at)
        }
    }

    private func checkPresent(_ version: LocalizedCatalog) {
        if version.json["title"]?.stringValue == nil {
            missing(version, "title", key: CatalogTexts.catalogKey(catalog.id), "the catalog", at: catalog.location)
        }
        for metric in catalog.metrics {
            let info = version.json["metrics"]?[metric.key]
            for path in ["label", "bands.low", "bands.mid", "bands.high"] {
                if Self.text(info, path) == nil {
                    missing(
                        version, path, key: CatalogTexts.metricKey(metric.key, path), "metric `\(metric.key)`",
                        at: metric.location)
                }
            }
        }
        let branches = version.json["branches"]?.arrayValue ?? []
        for branch in catalog.branches {
            let written = branches.first { $0["id"]?.stringValue == branch.id }
            if written?["title"]?.stringValue == nil {
                missing(
                    version, "title", key: CatalogTexts.branchKey(branch.id), "branch `\(branch.id)`",
                    at: branch.location)
            }
        }
        for block in catalog.blocks {
            guard let written = version.block(block.id) else { continue }
            var required = ["title", "preview.learn", "preview.why", "action.label", "note"]
            if written["reminder"] != nil { required.append("reminder.text") }
            for path in required where Self.text(written, path) == nil {
                missing(
                    version, path, key: CatalogTexts.blockKey(block.id, path), "block `\(block.id)`", at: block.location
                )
            }
            let cards = written["theory"]?.arrayValue ?? []
            for (index, card) in cards.enumerated() where card == .null {
                missing(
                    version, "theory.\(index + 1)", key: CatalogTexts.blockKey(block.id, "theory.\(index + 1)"),
                    "block `\(block.id)` (its theory cards are numbered from 1 without gaps)", at: block.location)
            }
            // Theory written in place is checked where it is written.
            if !Self.writtenTheory(catalog, block.id), !(3...5).contains(cards.count) {
                let what = version.locale.map { "its `\($0.texts.locale)` theory" } ?? "`theory`"
                context.error(
                    "invalid_value",
                    "catalog `\(catalog.id)`: block `\(block.id)`: \(what) must list 3 to 5 cards of text, found \(cards.count)",
                    at: block.location)
            }
        }
    }

    /// Theory cards of 2–3 sentences, preview lines within the catalog's limit, as each locale
    /// writes them.
    private func checkSizes(_ version: LocalizedCatalog, locale: LocaleDocument) {
        for block in catalog.blocks {
            let prefix = "journey.block.\(block.id)."
            for (key, text) in locale.texts.texts where key.hasPrefix(prefix) {
                guard let place = locale.places[key] else { continue }
                let path = String(key.dropFirst(prefix.count))
                let source = text.message.source
                if path.hasPrefix("theory."), let number = Int(path.dropFirst("theory.".count)) {
                    let count = TheoryCard.sentenceCount(source)
                    let range = TheoryCard.sentences
                    if !range.contains(count) {
                        context.error(
                            "invalid_value",
                            "block `\(block.id)`: the `\(locale.texts.locale)` theory card \(number) has \(count) sentence\(count == 1 ? "" : "s"); a card holds \(range.lowerBound) to \(range.upperBound), one idea (split a longer one into two cards)",
                            at: place)
                    }
                }
                if ["preview.learn", "preview.why", "action.label"].contains(path),
                    source.count > catalog.previewLineLimit
                {
                    context.error(
                        "invalid_value",
                        "block `\(block.id)`: the `\(locale.texts.locale)` `\(path)` is \(source.count) characters long; a preview line fits at most \(catalog.previewLineLimit) (the preview has three lines: move the rest into the theory)",
                        at: place)
                }
            }
        }
    }

    /// Whether the catalog writes `block`'s theory in place.
    static func writtenTheory(_ catalog: Catalog, _ block: String) -> Bool {
        for branch in catalog.json["branches"]?.arrayValue ?? [] {
            for written in branch["blocks"]?.arrayValue ?? [] where written["id"]?.stringValue == block {
                return written["theory"] != nil
            }
        }
        return false
    }

    /// The text at a dotted `path` of `value`, if there is one.
    static func text(_ value: JSON?, _ path: String) -> String? {
        var node = value
        for segment in path.split(separator: ".") { node = node?[String(segment)] }
        return node?.stringValue
    }
}
