import Locales
import RuleEngine
import YAML

/// One locale file (`Rules/locales/ru.yaml`) as loaded: its texts, and where each is written.
public struct LocaleDocument: Sendable {
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
                key.wholeMatch(of: #/[a-z][a-z0-9_]*(\.[a-z0-9_]+)*/#) != nil
            else {
                file.error(
                    "invalid_key", "a text key is lowercase words joined by dots (onboarding.welcome.title)",
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
        LocaleChecks(documents: documents.compactMap { $0.value as? LocaleDocument }, usedKeys: usedKeys)
            .run(context)
    }
}

/// A text key a feature's code renders, and what renders it (for `journey texts` and
/// `journey check`).
public struct TextUse: Sendable, Equatable {
    public var key: String
    /// What renders it: `onboarding: GET /v1/users/{user}/onboarding`.
    public var usedBy: String

    public init(_ key: String, usedBy: String) {
        self.key = key
        self.usedBy = usedBy
    }
}

extension RuleSet {
    /// The texts of every locale file of the rule set (the default locale first).
    public var texts: TextCatalog {
        TextCatalog(documents(of: LocaleDocument.self).map(\.texts))
    }

    /// Where each locale's text of `key` is written.
    public func textPlaces(_ key: String) -> [String: SourceLocation] {
        documents(of: LocaleDocument.self).reduce(into: [:]) { places, document in
            places[document.texts.locale] = document.places[key]
        }
    }
}
