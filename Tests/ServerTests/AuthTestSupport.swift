import Auth
import Core
import Foundation

/// The secret, service credentials and tokens the authentication tests use.
enum AuthFixture {
    static let secretText = "test-jwt-secret-0123456789abcdef-0123456789"
    static var secret: [UInt8] { Array(secretText.utf8) }
    static let now = Date().timeIntervalSince1970.rounded(.down)

    static let adminToken = "ops-admin-token-0123456789"
    static let pusherToken = "pusher-reminders-token-0123456789"
    static let scraperToken = "scraper-metrics-token-0123456789"
    /// The admin token file: one credential per scope.
    static let credentials = """
        # name scopes token
        ops \(adminToken)
        pusher reminders \(pusherToken)
        scraper metrics,analytics \(scraperToken)
        """

    /// A token for `user`, valid for an hour from `now` unless `claims` say otherwise.
    static func token(_ user: String, _ changes: [String: JSON?] = [:], secret: [UInt8] = AuthFixture.secret)
        -> String
    {
        var claims: JSONObject = ["sub": .string(user), "iat": .number(now), "exp": .number(now + 3600)]
        for (key, value) in changes { claims[key] = value }
        return TokenMinter.hs256(claims: claims, secret: secret)
    }

    /// Tokens the service must refuse, by what is wrong with them.
    static var refusedTokens: [(String, String)] {
        [
            ("expired", token("ann", ["exp": .number(now - 600)])),
            ("forged", token("ann", secret: Array("another-secret-0123456789abcdef-0123456789".utf8))),
            (
                "alg none",
                TokenMinter.sign(
                    header: ["alg": "none", "typ": "JWT"], claims: ["sub": "ann", "exp": .number(now + 600)]
                ) { _ in [] }
            ),
            ("not a JWT", "ann"),
            ("bad base64", token("ann") + "!"),
            ("no exp", token("ann", ["exp": nil])),
        ]
    }

    /// A `dog_registered` body for `dog` of `user`.
    static func registration(_ dog: String, user: String) -> JSON {
        [
            "dog_id": .string(dog), "user_id": .string(user), "name": "Rex", "age_range": "4-8m",
            "timezone": "Europe/Berlin", "metrics": ["bond": 50, "recall": 30],
        ]
    }
}
