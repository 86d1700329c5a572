import Core
import FeatureKit
import Foundation
import HTTP
import Store

/// A user's profile: the locale they read the app in, their time zone and the name others see
/// them by. Only its user reads or changes it (the path's user is the token's subject).
enum ProfileRoutes {
    /// `GET /v1/users/{user_id}/profile`: what the user set (null when not set), the locale their
    /// texts are served in for this request and why, and the locales there are texts for.
    static func show(_ service: JourneyService, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        let profile = try read(service, user)
        return .json(json(user: user, profile: profile ?? UserProfile(), service: service, request: request))
    }

    /// `PUT /v1/users/{user_id}/profile` with `{locale, timezone, display_name}`: replaces all three
    /// (absent or null clears one). A locale the rules have no texts for, a time zone that is not
    /// IANA's, or a name ``DisplayName`` refuses is `422` naming the field and what is accepted.
    static func replace(_ service: JourneyService, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        var fields = try RequestBody.fields(request)
        let supported = service.ruleSet.texts.codes
        let locale = try? fields.optionalString("locale", maxLength: 35)
        if let locale, !supported.contains(locale) {
            fields.fail(
                "locale", .invalid,
                "is not a supported locale: \(supported.map { "`\($0)`" }.joined(separator: ", "))")
        }
        let timezone = try? fields.optionalString("timezone", maxLength: 64)
        if let timezone, TimeZone(identifier: timezone) == nil {
            fields.fail("timezone", .invalid, "is not an IANA time zone such as Europe/Moscow")
        }
        let displayName = try? fields.optionalDisplayName("display_name")
        try fields.check()
        let profile = UserProfile(locale: locale, timezone: timezone, displayName: displayName)
        do {
            try service.store.setUserProfile(user, profile, now: service.now())
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        return .json(json(user: user, profile: profile, service: service, request: request))
    }

    private static func read(_ service: JourneyService, _ user: String) throws(APIError) -> UserProfile? {
        do {
            return try service.store.userProfile(user)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    private static func json(user: String, profile: UserProfile, service: JourneyService, request: HTTPRequest)
        -> JSON
    {
        let texts = RequestTexts.choose(
            profile: profile, acceptLanguage: request.header("Accept-Language"), catalog: service.ruleSet.texts)
        return [
            "user_id": .string(user), "locale": profile.locale.map(JSON.string) ?? .null,
            "timezone": profile.timezone.map(JSON.string) ?? .null,
            "display_name": profile.displayName.map(JSON.string) ?? .null,
            "effective_locale": .string(texts.locale), "locale_source": .string(texts.source),
            "supported_locales": .array(texts.catalog.codes.map(JSON.string)),
        ]
    }
}
