import Foundation

/// One key's text in one locale, parsed when its file loaded.
public struct LocalizedText: Sendable {
    public var message: Message
    /// The most characters the screen has room for (``Message/maximumLength``), when declared.
    public var limit: Int?

    public init(message: Message, limit: Int? = nil) {
        self.message = message
        self.limit = limit
    }
}

/// One locale's texts: what a locale file (`Rules/locales/ru.yaml`) gives.
public struct LocaleTexts: Sendable {
    /// The locale's code: `ru`, `en`, `de`.
    public var locale: String
    /// Whether it is the default locale (the documents' language): the text of a key another
    /// locale lacks, and the locale of a user who asked for none the engine has.
    public var isDefault: Bool
    /// Its CLDR rules.
    public var rules: LocaleRules
    public var texts: [String: LocalizedText]

    public init(locale: String, isDefault: Bool, rules: LocaleRules, texts: [String: LocalizedText]) {
        self.locale = locale
        self.isDefault = isDefault
        self.rules = rules
        self.texts = texts
    }
}

/// Every locale's texts, the default first: what a feature renders its texts with.
///
///     catalog.render("habits.tracked_days", locale: "ru", ["count": 5])   // "5 дней"
public struct TextCatalog: Sendable {
    /// The default locale first, then the others by code.
    public let locales: [LocaleTexts]

    /// `locales` with the default (the one marked default, else the first) put first.
    public init(_ locales: [LocaleTexts]) {
        let defaultIndex = locales.firstIndex(where: \.isDefault) ?? 0
        var ordered = locales
        if !ordered.isEmpty {
            let first = ordered.remove(at: defaultIndex)
            ordered.sort { $0.locale < $1.locale }
            ordered.insert(first, at: 0)
        }
        self.locales = ordered
    }

    /// The default locale's code (`ru`); `ru` when there are no locale files.
    public var defaultLocale: String { locales.first?.locale ?? "ru" }

    /// The codes of the locales there are texts for, the default first.
    public var codes: [String] { locales.map(\.locale) }

    /// Whether there are texts for `code`.
    public func supports(_ code: String) -> Bool { locales.contains { $0.locale == code } }

    /// The texts of `code`, else of the default locale.
    public func locale(_ code: String) -> LocaleTexts? {
        locales.first { $0.locale == code } ?? locales.first
    }

    /// `key`'s text in `locale` with `arguments` in place. A key the locale lacks is rendered
    /// from the default locale (with the default locale's plural rules); a key no locale has
    /// is returned as the key itself, so that it shows (`journey check` refuses both).
    public func render(_ key: String, locale: String, _ arguments: [String: TextArgument] = [:]) -> String {
        for texts in locales where texts.locale == locale {
            if let text = texts.texts[key] { return text.message.render(arguments, rules: texts.rules) }
        }
        if let fallback = locales.first, let text = fallback.texts[key] {
            return text.message.render(arguments, rules: fallback.rules)
        }
        return key
    }

    /// Whether any locale has a text for `key`.
    public func has(_ key: String) -> Bool {
        locales.contains { $0.texts[key] != nil }
    }

    /// Every key of every locale, sorted.
    public var keys: [String] {
        Set(locales.flatMap(\.texts.keys)).sorted()
    }

    /// The supported locale an `Accept-Language` header asks for first (by its `q` weights, a
    /// region falling back to its language: `ru-RU` → `ru`); nil when it names none of them.
    public func negotiate(acceptLanguage header: String?) -> String? {
        guard let header else { return nil }
        for tag in AcceptLanguage.ranges(header) {
            if let exact = codes.first(where: { $0.lowercased() == tag }) { return exact }
            let language = tag.prefix { $0 != "-" }
            if let match = codes.first(where: { $0.lowercased() == language }) { return match }
        }
        return nil
    }
}

/// RFC 9110's `Accept-Language`: language ranges with weights.
public enum AcceptLanguage {
    /// The ranges of `header`, lowercased, most wanted first (equal weights keep their order);
    /// `*`, a weight of 0 and malformed parts are left out. Reads at most 32 ranges.
    public static func ranges(_ header: String) -> [String] {
        var weighted: [(tag: String, q: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",", maxSplits: 32).prefix(32).enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased(), !tag.isEmpty, tag != "*", tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { continue }
            var q = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            guard q > 0, q <= 1 else { continue }
            weighted.append((tag.replacingOccurrences(of: "_", with: "-"), q, order))
        }
        return weighted.sorted { ($0.q, -$0.order) > ($1.q, -$1.order) }.map(\.tag)
    }
}
