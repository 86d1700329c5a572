import Core
import FeatureKit
import Foundation
import HTTP
import Locales
import RevisionStore
import RuleEngine

/// The admin API of texts (`Rules/locales/*.yaml`): every key with each locale's text, a text
/// rendered for sample arguments (plural forms chosen), and new texts checked by the gates
/// `journey check` runs (a key a locale lacks, placeholders that differ, plural forms missing,
/// a text over its limit, the wording lint) or kept as a draft revision — previewed, diffed and
/// activated with the revision routes like any other.
enum TextRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/texts", admin: true, list),
        FeatureRoute("POST", "/v1/texts/render", admin: true, role: .viewer, render),
        FeatureRoute("POST", "/v1/texts/check", admin: true, role: .editor, check),
        FeatureRoute("PUT", "/v1/texts", admin: true, role: .editor, put),
    ]

    /// The counts a plural text is shown for, to see each form chosen.
    static let pluralSamples: [Double] = [0, 1, 2, 5, 11, 21, 1.5]

    /// Every key of the texts served, with each locale's text, its limit and its placeholders.
    static func list(_ service: any ServiceContext, _: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let catalog = service.ruleSet.texts
        let keys: [JSON] = catalog.keys.map { key in
            var texts: JSONObject = [:]
            var limits: JSONObject = [:]
            var arguments: [String] = []
            var plurals: [String] = []
            for locale in catalog.locales {
                guard let text = locale.texts[key] else {
                    texts[locale.locale] = .null
                    continue
                }
                texts[locale.locale] = .string(text.message.source)
                if let limit = text.limit { limits[locale.locale] = .number(Double(limit)) }
                for name in text.message.arguments where !arguments.contains(name) { arguments.append(name) }
                for (name, _) in text.message.plurals where !plurals.contains(name) { plurals.append(name) }
            }
            return [
                "key": .string(key), "texts": .object(texts), "limits": .object(limits),
                "arguments": .array(arguments.map(JSON.string)), "plural_arguments": .array(plurals.map(JSON.string)),
            ]
        }
        return .json([
            "revision": .string(service.ruleSet.revision), "locales": .array(catalog.codes.map(JSON.string)),
            "default_locale": .string(catalog.defaultLocale), "keys": .array(keys),
        ])
    }

    /// `{key?, texts?: {LOCALE: text}, args?: {NAME: value}}`: each locale's text (the one given,
    /// else the key's served text) rendered with `args`, a plural text for sample counts, and
    /// `problems` by locale for a text that does not parse (as one types).
    static func render(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let catalog = service.ruleSet.texts
        var fields = try RequestBody.fields(request)
        let key = (try? fields.optionalString("key", maxLength: 200)) ?? nil
        let given = ((try? fields.optionalObject("texts")) ?? nil) ?? [:]
        let args = ((try? fields.optionalObject("args")) ?? nil) ?? [:]
        var sources: [(String, String)] = []
        for locale in catalog.locales {
            if let value = given[locale.locale] {
                guard case .string(let text) = value else {
                    fields.fail("texts", at: locale.locale, .wrongType, "must be a string, got \(value.typeName)")
                    continue
                }
                sources.append((locale.locale, text))
            } else if let key, let text = locale.texts[key] {
                sources.append((locale.locale, text.message.source))
            }
        }
        for code in given.keys.sorted() where !catalog.supports(code) {
            fields.fail("texts", at: code, .invalid, unknownLocale(code, catalog))
        }
        if sources.isEmpty, fields.errors.isEmpty {
            if let key {
                fields.fail("key", .invalid, "no text has the key `\(key)`")
            } else {
                fields.fail("texts", .missing, "give `key` (a text served now) or `texts` (a text per locale)")
            }
        }
        var arguments: [String: TextArgument] = [:]
        for (name, value) in args {
            switch value {
            case .number(let number): arguments[name] = .number(number)
            case .string(let text): arguments[name] = Double(text).map(TextArgument.number) ?? .text(text)
            default: fields.fail("args", at: name, .wrongType, "must be a number or a string, got \(value.typeName)")
            }
        }
        try fields.check()
        var rendered: JSONObject = [:]
        var samples: JSONObject = [:]
        var problems: JSONObject = [:]
        for (code, source) in sources {
            guard let rules = catalog.locale(code)?.rules else { continue }
            let message: Message
            do {
                message = try Message(source)
            } catch {
                problems[code] = .string("\(error.message) (at character \(error.offset + 1))")
                continue
            }
            rendered[code] = .string(message.render(arguments, rules: rules))
            if let plural = message.plurals.first?.argument {
                samples[code] = .array(
                    pluralSamples.map { count in
                        var withCount = arguments
                        withCount[plural] = .number(count)
                        return [
                            "argument": .string(plural), "count": .number(count),
                            "plural_category": .string(rules.pluralCategory(count).rawValue),
                            "text": .string(message.render(withCount, rules: rules)),
                        ]
                    })
            }
        }
        return .json(["rendered": .object(rendered), "plural_samples": .object(samples), "problems": .object(problems)])
    }

    /// `{texts: {KEY: {LOCALE: text}}, base?}`: the gate report of the draft those texts make,
    /// stored nowhere (200 either way; `passed` says whether it would be kept). Each diagnostic
    /// of an edited key carries `pointer` `/texts/KEY/LOCALE`.
    static func check(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (draft, _) = try read(request, service: service, syntaxRefused: false)
        let object = try DraftRevision.check(
            try draft.base.merged(draft.edited), base: draft.base.id, service: service, tests: false,
            pointer: draft.pointer)
        return .json(.object(object))
    }

    /// `{texts: {KEY: {LOCALE: text}}, message?, base?}`: a draft revision with those texts over
    /// `base` (`active` by default), kept when its gates pass (201; 200 when kept already), not
    /// activated. 422 names each refused text by its pointer `/texts/KEY/LOCALE`.
    static func put(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (draft, message) = try read(request, service: service, syntaxRefused: true)
        let summary = draft.changed.map { "\($0.key) (\($0.locale))" }.joined(separator: ", ")
        let changes: [JSON] = draft.changed.map {
            [
                "key": .string($0.key), "locale": .string($0.locale), "from": $0.from.map(JSON.string) ?? .null,
                "to": .string($0.to),
            ]
        }
        return try draft.base.keep(
            draft.edited, message: message ?? String(("texts: " + summary).prefix(2_000)), request: request,
            service: service, extra: ["changes": .array(changes)], pointer: draft.pointer)
    }

    // MARK: Helpers

    /// Texts to write into the locale files of a base revision.
    struct TextDraft {
        var base: DraftRevision
        /// Path → the edited locale file's text.
        var edited: [String: String]
        var changed: [(key: String, locale: String, from: String?, to: String)]
        /// Path → the locale its file declares.
        var locales: [String: String]

        /// `/texts/KEY/LOCALE` of a diagnostic on an edited key's line.
        func pointer(_ diagnostic: Diagnostic) -> String? {
            for (path, code) in locales where diagnostic.location.file.hasSuffix(path) {
                let text = edited[path] ?? base.files.files[path] ?? ""
                guard let key = LocaleFileEdit(text).key(atLine: diagnostic.location.line),
                    changed.contains(where: { $0.key == key })
                else { return nil }
                return JSONPointer.appending(code, to: JSONPointer.appending(key, to: "/texts"))
            }
            return nil
        }
    }

    /// The texts a body gives, written into the base's locale files. A text that does not parse
    /// is refused (422) when `syntaxRefused`; otherwise the gates report it (a check as one types).
    private static func read(_ request: HTTPRequest, service: any ServiceContext, syntaxRefused: Bool)
        throws(APIError) -> (TextDraft, String?)
    {
        var fields = try RequestBody.fields(request)
        let texts = (try? fields.object("texts")) ?? [:]
        if texts.isEmpty, fields.has("texts"), fields.errors.isEmpty {
            fields.fail("texts", .invalid, "must set at least one text")
        }
        if texts.count > 500 { fields.fail("texts", .outOfRange, "sets at most 500 texts at once") }
        let message = (try? fields.optionalString("message", maxLength: 2_000)) ?? nil
        let baseName = ((try? fields.optionalIdentifier("base")) ?? nil) ?? "active"
        try fields.check()
        let base = try DraftRevision(base: baseName, service: service)
        // A locale's files: its own (`locales/ru.yaml`) first, then a feature's (`locales/journey/ru.yaml`).
        let localeFiles = LocaleFileEdit.files(in: base.files.files)
        let catalog = base.ruleSet.texts
        var errors: [FieldError] = []
        var edits: [String: LocaleFileEdit] = [:]
        var changed: [(key: String, locale: String, from: String?, to: String)] = []
        for key in texts.keys.sorted() {
            let at = JSONPointer.appending(key, to: "/texts")
            guard key.count <= 200, LocaleDocument.isKey(key) else {
                errors.append(
                    FieldError(.invalid, at: at, "a text key is lowercase words joined by dots (habits.title)"))
                continue
            }
            guard case .object(let byLocale)? = texts[key], !byLocale.isEmpty else {
                errors.append(FieldError(.wrongType, at: at, "must be an object of texts by locale ({\"ru\": …})"))
                continue
            }
            for code in byLocale.keys.sorted() {
                let pointer = JSONPointer.appending(code, to: at)
                // The file that holds the key, else the locale's own file.
                let place = base.ruleSet.textPlaces(key)[code]?.file
                guard let path = LocaleFileEdit.file(among: localeFiles[code] ?? [], holding: place) else {
                    errors.append(FieldError(.invalid, at: pointer, unknownLocale(code, catalog)))
                    continue
                }
                guard case .string(let text)? = byLocale[code], !text.trimmingCharacters(in: .whitespaces).isEmpty,
                    text.count <= 2_000
                else {
                    errors.append(
                        FieldError(.invalid, at: pointer, "must be non-empty text of at most 2000 characters"))
                    continue
                }
                do {
                    _ = try Message(text)
                } catch  where syntaxRefused {
                    errors.append(
                        FieldError(.invalid, at: pointer, "\(error.message) (at character \(error.offset + 1))"))
                    continue
                } catch {}
                let before = catalog.locales.first { $0.locale == code }?.texts[key]?.message.source
                guard before != text else { continue }
                var edit = edits[path] ?? LocaleFileEdit(base.files.files[path] ?? "")
                edit.set(key, text)
                edits[path] = edit
                changed.append((key, code, before, text))
            }
        }
        guard errors.isEmpty else { throw APIError(fieldErrors: errors) }
        guard !changed.isEmpty else {
            throw APIError(
                422, "invalid_request", "the request changes nothing: every text given is the text it has",
                errors: [
                    [
                        "pointer": "/texts", "path": "/texts", "field": "texts", "code": "invalid",
                        "message": "changes nothing",
                    ]
                ])
        }
        let edited = edits.mapValues(\.text)
        var locales: [String: String] = [:]
        for (code, paths) in localeFiles { for path in paths { locales[path] = code } }
        return (TextDraft(base: base, edited: edited, changed: changed, locales: locales), message)
    }

    private static func unknownLocale(_ code: String, _ catalog: TextCatalog) -> String {
        "there is no locale file for `\(code)`; the locales are \(catalog.codes.joined(separator: ", "))"
    }
}
