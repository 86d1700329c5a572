import CheckPlugins
import FeatureKit
import RuleEngine
import YAML

/// The wording rules of all content (`Rules/wording.yaml`): phrases never used, each in its
/// locale's word list (`locale:`, `en` when not given: the catalog's content is English), and
/// phrases a branch must always carry (the health branch says it does not replace a vet). Every
/// text of every locale file is checked against its own locale's list.
public struct WordingRules: Sendable {
    public struct Forbidden: Sendable {
        public var phrase: String
        public var reason: String
        public var instead: String?
        /// The locale whose texts it is checked in (`en`, `ru`).
        public var locale: String
        /// Phrases that hold it and say what the rule wants: "not a diagnosis" (the product
        /// document's own «Это наблюдение, не диагноз»).
        public var except: [String] = []

        /// Whether `text` uses the phrase outside its `except` phrases.
        public func isUsed(in text: String) -> Bool {
            isUsed(inLowercased: text.lowercased())
        }

        /// ``isUsed(in:)`` for a text already lowercased: checking one text against every
        /// phrase lowercases it once, not once per phrase.
        public func isUsed(inLowercased text: String) -> Bool {
            var rest = text
            for allowed in except { rest = rest.replacingOccurrences(of: allowed.lowercased(), with: " ") }
            return WordingRules.contains(lowercased: rest, phrase.lowercased())
        }
    }

    public struct Required: Sendable {
        /// The locale whose texts must carry it (`en` when not given).
        public var locale: String = "en"
        public var branch: String
        public var phrase: String
        public var reason: String
    }

    public var forbidden: [Forbidden]
    public var required: [Required]

    /// Whether `text` holds `phrase` at the start of a word, ignoring case: `dominan` matches
    /// "dominance", `cure` matches "cures" but not "secure".
    public static func contains(_ text: String, _ phrase: String) -> Bool {
        contains(lowercased: text.lowercased(), phrase.lowercased())
    }

    /// ``contains(_:_:)`` for a text and a phrase already lowercased.
    static func contains(lowercased haystack: String, _ needle: String) -> Bool {
        guard !needle.isEmpty else { return false }
        var rest = haystack[...]
        while let range = rest.range(of: needle) {
            if range.lowerBound == haystack.startIndex || !haystack[haystack.index(before: range.lowerBound)].isLetter {
                return true
            }
            rest = haystack[range.upperBound...]
        }
        return false
    }
}

/// Reads the `wording:` document.
public struct WordingDocumentKind: DocumentKind {
    public let key = "wording"

    public init() {}

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let top = file.fields(root, what: "wording document", allowed: ["wording"]),
            let node = top.values["wording"],
            let fields = file.fields(node, what: "wording", allowed: ["forbidden", "required"])
        else { return nil }
        var forbidden: [WordingRules.Forbidden] = []
        for item in fields.values["forbidden"]?.items ?? [] {
            guard
                let rule = file.fields(
                    item, what: "forbidden phrase", allowed: ["phrase", "reason", "instead", "locale", "except"]),
                let phrase = rule.string("phrase", required: true)?.value,
                let reason = rule.string("reason", required: true)?.value
            else { continue }
            forbidden.append(
                .init(
                    phrase: phrase, reason: reason, instead: rule.string("instead")?.value,
                    locale: rule.string("locale")?.value ?? "en", except: rule.strings("except")?.map(\.value) ?? []))
        }
        var required: [WordingRules.Required] = []
        for item in fields.values["required"]?.items ?? [] {
            guard
                let rule = file.fields(
                    item, what: "required phrase", allowed: ["branch", "phrase", "reason", "locale"]),
                let branch = rule.string("branch", required: true)?.value,
                let phrase = rule.string("phrase", required: true)?.value,
                let reason = rule.string("reason", required: true)?.value
            else { continue }
            required.append(
                .init(locale: rule.string("locale")?.value ?? "en", branch: branch, phrase: phrase, reason: reason))
        }
        return DecodedDocument(value: WordingRules(forbidden: forbidden, required: required))
    }

    /// Every locale file's texts against the forbidden phrases of its locale.
    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        let rules = documents.compactMap { $0.value as? WordingRules }.flatMap(\.forbidden)
        for locale in context.documents(of: LocaleDocument.self) {
            let list = rules.filter { $0.locale == locale.texts.locale }
            for (key, text) in locale.texts.texts.sorted(by: { $0.key < $1.key }) {
                let lowercased = text.message.source.lowercased()
                for rule in list where rule.isUsed(inLowercased: lowercased) {
                    var message =
                        "the `\(locale.texts.locale)` text of `\(key)`: \"\(rule.phrase)\" is not used in our content: \(rule.reason)"
                    if let instead = rule.instead { message += "; instead: \(instead)" }
                    context.error("wording", message, at: locale.places[key] ?? locale.location)
                }
            }
        }
    }
}
