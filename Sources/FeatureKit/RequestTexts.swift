import HTTP
import Locales
import Store

/// The texts one request is answered in: the locale chosen for it and the served revision's
/// texts. A feature's route localizes its view with one call:
///
///     let texts = service.texts(for: request, user: user)
///     object["button"] = .string(texts("onboarding.first_launch.button"))
///     object["left"] = .string(texts("onboarding.steps_left", ["count": 3]))   // "Осталось 3 шага"
public struct RequestTexts: Sendable {
    /// The locale chosen (see ``ServiceContext/texts(for:user:)``): always one the rules have
    /// texts for, or the default.
    public let locale: String
    /// Where it came from: `profile`, `accept-language` or `default`.
    public let source: String
    /// The served revision's texts.
    public let catalog: TextCatalog

    public init(locale: String, source: String, catalog: TextCatalog) {
        self.locale = locale
        self.source = source
        self.catalog = catalog
    }

    /// `key` in this request's locale with `arguments` in place (see ``TextCatalog/render(_:locale:_:)``).
    public func callAsFunction(_ key: String, _ arguments: [String: TextArgument] = [:]) -> String {
        catalog.render(key, locale: locale, arguments)
    }

    /// The locale's CLDR rules: numbers (`8 500`), weekday names, dates.
    public var rules: LocaleRules {
        catalog.locale(locale)?.rules ?? LocaleRules.for(locale) ?? LocaleRules.for("en")!
    }

    /// The texts of `locale` chosen for `profile` and an `Accept-Language` header: the
    /// profile's locale when the rules have it, else the header's first that they have, else
    /// the default locale. Never fails: a header naming none falls back to the default.
    public static func choose(profile: UserProfile?, acceptLanguage: String?, catalog: TextCatalog) -> RequestTexts {
        if let chosen = profile?.locale, catalog.supports(chosen) {
            return RequestTexts(locale: chosen, source: "profile", catalog: catalog)
        }
        if let negotiated = catalog.negotiate(acceptLanguage: acceptLanguage) {
            return RequestTexts(locale: negotiated, source: "accept-language", catalog: catalog)
        }
        return RequestTexts(locale: catalog.defaultLocale, source: "default", catalog: catalog)
    }
}

extension RequestTexts {
    /// The texts a command prints in: `locale` (its `--locale`) when given, else the locale of
    /// `user`'s profile, else the default. Throws ``UnknownLocale`` for a locale the rules have
    /// no texts for.
    public static func command(locale: String?, user: String?, store: (any StoreReader)?, catalog: TextCatalog)
        throws -> RequestTexts
    {
        if let locale {
            guard catalog.supports(locale) else { throw UnknownLocale(locale: locale, supported: catalog.codes) }
            return RequestTexts(locale: locale, source: "option", catalog: catalog)
        }
        let profile = try user.flatMap { user in try store?.userProfile(user) } ?? nil
        return choose(profile: profile, acceptLanguage: nil, catalog: catalog)
    }

    /// A locale the rules have no texts for.
    public struct UnknownLocale: Error, CustomStringConvertible {
        public var locale: String
        public var supported: [String]
        public init(locale: String, supported: [String]) {
            self.locale = locale
            self.supported = supported
        }
        public var description: String {
            "no texts for locale `\(locale)`; the locales are \(supported.joined(separator: ", "))"
        }
    }
}

extension ServiceContext {
    /// The texts to answer `request` in for `user` (the signed-in user when nil): the locale of
    /// the user's profile, else the request's `Accept-Language`, else the default locale (`ru`).
    /// A store that does not answer leaves the profile out rather than failing the view.
    public func texts(for request: HTTPRequest, user: String? = nil) -> RequestTexts {
        let profile = (user ?? principal?.user).flatMap { try? store.userProfile($0) } ?? nil
        return RequestTexts.choose(
            profile: profile, acceptLanguage: request.header("Accept-Language"), catalog: ruleSet.texts)
    }
}
