import Locales
import RuleEngine

/// What `journey check` refuses in the locale files together, each at its file:line:col.
struct LocaleChecks {
    let documents: [LocaleDocument]
    let usedKeys: [TextUse]

    func run(_ context: DocumentCheckContext) {
        guard !documents.isEmpty else { return }
        let defaults = documents.filter(\.texts.isDefault)
        if defaults.isEmpty {
            context.error(
                "no_default_locale",
                "no locale file says `default: true`: one locale (the documents' language) must be the default",
                at: documents[0].location)
        }
        for extra in defaults.dropFirst() {
            context.error(
                "two_default_locales",
                "`\(extra.texts.locale)` and `\(defaults[0].texts.locale)` both say `default: true`: one may",
                at: extra.location)
        }
        let reference = defaults.first ?? documents[0]
        let keys = Set(documents.flatMap(\.texts.texts.keys)).sorted()
        for key in keys {
            checkKey(key, reference: reference, context)
        }
        for use in usedKeys where reference.texts.texts[use.key] == nil && !keys.contains(use.key) {
            context.error(
                "missing_text",
                "`\(use.key)` (used by \(use.usedBy)) has no text in any locale: add it to \(reference.texts.locale)'s file",
                at: reference.location)
        }
    }

    private func checkKey(_ key: String, reference: LocaleDocument, _ context: DocumentCheckContext) {
        let having = documents.filter { $0.texts.texts[key] != nil }
        let model = reference.texts.texts[key] != nil ? reference : having[0]
        let modelArguments = model.texts.texts[key]!.message.arguments
        let limit = having.compactMap { $0.texts.texts[key]?.limit }.min()
        for document in documents {
            let locale = document.texts.locale
            guard let text = document.texts.texts[key], let place = document.places[key] else {
                let where_ = model.places[key].map { " (\(model.texts.locale) has it at \($0))" } ?? ""
                context.error(
                    "missing_text", "`\(key)` has no text in locale `\(locale)`\(where_)", at: document.location)
                continue
            }
            let arguments = text.message.arguments
            if document.texts.locale != model.texts.locale, arguments != modelArguments {
                context.error(
                    "placeholder_mismatch",
                    "the `\(locale)` text of `\(key)` has placeholders \(Self.list(arguments)) where `\(model.texts.locale)` has \(Self.list(modelArguments))",
                    at: place)
            }
            for plural in text.message.plurals {
                let missing = document.texts.rules.pluralCategories.filter { !plural.categories.contains($0) }
                if !missing.isEmpty {
                    context.error(
                        "missing_plural_form",
                        "the `\(locale)` text of `\(key)` has no \(missing.map { "`\($0.rawValue)`" }.joined(separator: ", ")) form for `{\(plural.argument), plural, …}`: \(locale) numbers take \(document.texts.rules.pluralCategories.map(\.rawValue).joined(separator: ", "))",
                        at: place)
                }
            }
            if let limit, text.message.maximumLength > limit {
                context.error(
                    "text_too_long",
                    "the `\(locale)` text of `\(key)` can take \(text.message.maximumLength) characters; its screen has room for \(limit) (each placeholder counts \(Message.argumentWidth))",
                    at: place)
            }
        }
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.map { "{\($0)}" }.joined(separator: ", ")
    }
}
