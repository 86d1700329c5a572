import Foundation
import Locales
import RuleEngine
import YAML

/// One locale file (`Rules/locales/ru.yaml`) as loaded: its texts, and where each is written.
public struct LocaleDocument: Sendable {
    /// What a text key looks like: lowercase words joined by dots, a word of letters, digits,
    /// `_` and `-` (`journey.block.weight-baseline.title`: a catalog id keeps its spelling).
    public static func isKey(_ key: String) -> Bool {
        key.wholeMatch(of: #/[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*/#) != nil
    }

    public var texts: LocaleTexts
    /// Where the file's `locale:` document starts.
    public var location: SourceLocation
    /// Where each key's text is written.
    public var places: [String: SourceLocation]
}

/// Reads `locale:` documents: one locale's texts, each key's text parsed once, here (see
/// docs/locales.md for the format). Then checks them together: every key in every locale, the
/// same placeholders, the plural forms each locale's CLDR rules need, the screens' limits, and
/// the keys features render from code.
public struct LocaleDocumentKind: DocumentKind {
    public let key = "locale"
    /// The keys features' code renders (``Feature/texts``): each must be in the default locale.
    public let usedKeys: [TextUse]

    public init(usedKeys: [TextUse] = []) {
        self.usedKeys = usedKeys
    }

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let fields = file.fields(root, what: "locale file", allowed: ["locale", "default", "texts"]),
            let (code, codeNode) = fields.string("locale", required: true)
        else { return nil }
        guard code.wholeMatch(of: #/[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?/#) != nil, let rules = LocaleRules.for(code)
        else {
            file.error(
                "invalid_value", "`locale` is a language code such as ru, en or pt-BR, found `\(code)`",
                at: file.location(codeNode))
            return nil
        }
        var texts: [String: LocalizedText] = [:]
        var places: [String: SourceLocation] = [:]
        guard let textsNode = fields.values["texts"] else {
            fields.missing("texts", "give the locale's texts: `key: text`")
            return nil
        }
        guard let pairs = textsNode.pairs else {
            file.error(
                "invalid_type", "`texts` must be a mapping of `key: text`, found a \(textsNode.kindName)",
                at: file.location(textsNode))
            return nil
        }
        for pair in pairs {
            guard let key = pair.key.scalar?.value,
                LocaleDocument.isKey(key)
            else {
                file.error(
                    "invalid_key",
                    "a text key is lowercase words joined by dots (onboarding.welcome.title; a word may hold `-` and `_`)",
                    at: file.location(pair.key))
                continue
            }
            guard texts[key] == nil else {
                file.error("duplicate_key", "the key `\(key)` is given twice", at: file.location(pair.key))
                continue
            }
            var textNode = pair.value
            var limit: Int?
            if pair.value.pairs != nil {
                guard let entry = file.fields(pair.value, what: "text", allowed: ["text", "limit"]),
                    let node = entry.values["text"]
                else {
                    file.error("missing_field", "give the key's `text`", at: file.location(pair.value))
                    continue
                }
                textNode = node
                limit = entry.integer("limit", within: 1...10_000)?.value
            }
            guard let scalar = textNode.scalar, !scalar.value.isEmpty else {
                file.error("invalid_type", "the text of `\(key)` must be non-empty text", at: file.location(textNode))
                continue
            }
            do {
                texts[key] = LocalizedText(message: try Message(scalar.value), limit: limit)
                places[key] = file.location(textNode)
            } catch {
                file.error(
                    "invalid_message", "the text of `\(key)`: \(error.message)",
                    at: Self.location(of: error.offset, in: textNode, file: file))
            }
        }
        let document = LocaleDocument(
            texts: LocaleTexts(
                locale: code, isDefault: fields.bool("default") ?? false, rules: rules, texts: texts),
            location: file.location(root), places: places)
        return DecodedDocument(value: document)
    }

    /// Where character `offset` (from 1) of a one-line scalar is; a block scalar's own start.
    static func location(of offset: Int, in node: YAMLNode, file: DocumentFile) -> SourceLocation {
        var location = file.location(node)
        guard let scalar = node.scalar, !scalar.isBlock, !scalar.value.contains("\n") else { return location }
        location.column += offset - 1 + (scalar.style == .plain ? 0 : 1)
        return location
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        let files = documents.compactMap { $0.value as? LocaleDocument }
        for (key, place, first) in LocaleDocument.keysGivenTwice(files) {
            context.error(
                "duplicate_key", "the key `\(key)` is given twice in its locale: first at \(first)", at: place)
        }
        LocaleChecks(documents: LocaleDocument.merged(files), usedKeys: usedKeys).run(context)
    }
}

/// A text key a feature's code renders, and what renders it (for `journey texts` and
/// `journey check`).
public struct TextUse: Sendable, Equatable {
    public var key: String
    /// What renders it: `onboarding: GET /v1/users/{user_id}/onboarding`.
    public var usedBy: String

    public init(_ key: String, usedBy: String) {
        self.key = key
        self.usedBy = usedBy
    }
}

extension LocaleDocument {
    /// One document per locale: the files of a locale (`Rules/locales/ru.yaml` and a
    /// feature's `Rules/locales/journey/ru.yaml`) joined, the shortest path first. A locale is the default
    /// when one of its files says so; it is placed where its first file starts.
    public static func merged(_ files: [LocaleDocument]) -> [LocaleDocument] {
        var merged: [LocaleDocument] = []
        var index: [String: Int] = [:]
        // The locale's own file (`locales/ru.yaml`, the shortest path) first: where the locale is told.
        let depth = { (file: LocaleDocument) in file.location.file.split(separator: "/").count }
        for file in files.sorted(by: { (depth($0), $0.location.file) < (depth($1), $1.location.file) }) {
            guard let at = index[file.texts.locale] else {
                index[file.texts.locale] = merged.count
                merged.append(file)
                continue
            }
            merged[at].texts.isDefault = merged[at].texts.isDefault || file.texts.isDefault
            merged[at].texts.texts.merge(file.texts.texts) { first, _ in first }
            merged[at].places.merge(file.places) { first, _ in first }
        }
        return merged
    }

    /// Keys two files of one locale both give: (key, the second place, the first place).
    static func keysGivenTwice(_ files: [LocaleDocument]) -> [(String, SourceLocation, SourceLocation)] {
        var first: [String: SourceLocation] = [:]
        var twice: [(String, SourceLocation, SourceLocation)] = []
        for file in files.sorted(by: { $0.location.file < $1.location.file }) {
            for (key, place) in file.places.sorted(by: { $0.key < $1.key }) {
                let id = file.texts.locale + "\u{0}" + key
                if let earlier = first[id] { twice.append((key, place, earlier)) } else { first[id] = place }
            }
        }
        return twice
    }
}

extension RuleSet {
    /// The texts of every locale file of the rule set (the default locale first; the files of
    /// one locale joined).
    public var texts: TextCatalog {
        let files = documents(of: LocaleDocument.self)
        // A loader without the locale kind reads the same files and finds no texts.
        return TextCatalogCache.shared.catalog("\(revision)\u{0}\(files.count)") {
            TextCatalog(LocaleDocument.merged(files).map(\.texts))
        }
    }

    /// Where each locale's text of `key` is written.
    public func textPlaces(_ key: String) -> [String: SourceLocation] {
        documents(of: LocaleDocument.self).reduce(into: [:]) { places, document in
            if let place = document.places[key] { places[document.texts.locale] = place }
        }
    }
}

/// The text catalogs of the latest rule revisions: a revision is a hash over every file, so its
/// texts are made once (the locale files of each locale joined) and shared by every request.
///
/// `@unchecked Sendable`: `catalogs` is only touched with `lock` held; the values are immutable.
final class TextCatalogCache: @unchecked Sendable {
    static let shared = TextCatalogCache()
    private let lock = NSLock()
    private var catalogs: [String: TextCatalog] = [:]

    func catalog(_ key: String, make: () -> TextCatalog) -> TextCatalog {
        lock.lock()
        let kept = catalogs[key]
        lock.unlock()
        if let kept { return kept }
        let made = make()
        lock.lock()
        if catalogs.count >= 16 { catalogs.removeAll() }
        catalogs[key] = made
        lock.unlock()
        return made
    }
}
