import Auth
import Core
import Foundation
import TestSupport
import Testing

/// Bearer token checks: each kind of key accepts its good tokens and refuses the rest with the
/// reason the service answers 401 for.
@Suite struct TokenVerifierTests {
    static let now = 1_795_953_600.0  // 2026-11-29T12:00:00Z
    static var claims: JSONObject { ["sub": "u1", "iat": .number(now - 60), "exp": .number(now + 3600)] }

    static func claims(_ changes: [String: JSON?]) -> JSONObject {
        var claims = Self.claims
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    static func verifier(_ keys: String, issuer: String? = nil, audience: String? = nil) throws -> TokenVerifier {
        let store = TestKeys.shared
        let tokenKeys: TokenKeys =
            switch keys {
            case "secret": .secret(TestKeys.secret)
            case "jwks": try TokenKeys.jwks(file: jwksFile())
            default: try TokenKeys.publicKey(file: store.path("\(keys).pub.pem"))
            }
        return TokenVerifier(keys: tokenKeys, issuer: issuer, audience: audience)
    }

    static func jwksFile() throws -> String { TestKeys.shared.jwksPath }

    /// (what, keys configured, token maker, the refusal; nil: accepted).
    struct Case: Sendable, CustomTestStringConvertible {
        var what: String
        var keys: String
        var issuer: String? = nil
        var audience: String? = nil
        var refusal: TokenRefusal.Code?
        var token: @Sendable () throws -> String
        var testDescription: String { what }
    }

    static let cases: [Case] = {
        let keys = TestKeys.shared
        let good = Self.claims
        func hs(_ claims: JSONObject) -> @Sendable () throws -> String {
            { try keys.token(claims, alg: "HS256", key: nil) }
        }
        return [
            Case(what: "good HS256", keys: "secret", refusal: nil, token: hs(good)),
            Case(what: "good RS256", keys: "rsa", refusal: nil) { try keys.token(good, alg: "RS256", key: "rsa") },
            Case(what: "good ES256", keys: "ec", refusal: nil) { try keys.token(good, alg: "ES256", key: "ec") },
            Case(what: "JWKS: RS256 by kid r2", keys: "jwks", refusal: nil) {
                try keys.token(good, alg: "RS256", key: "rsa2", kid: "r2")
            },
            Case(what: "JWKS: ES256 by kid e1", keys: "jwks", refusal: nil) {
                try keys.token(good, alg: "ES256", key: "ec", kid: "e1")
            },
            Case(what: "JWKS: signed by r2's key, naming r1", keys: "jwks", refusal: .badSignature) {
                try keys.token(good, alg: "RS256", key: "rsa2", kid: "r1")
            },
            Case(what: "JWKS: unknown kid", keys: "jwks", refusal: .unknownKey) {
                try keys.token(good, alg: "RS256", key: "rsa", kid: "r9")
            },
            Case(what: "JWKS: no kid with two RSA keys", keys: "jwks", refusal: .unknownKey) {
                try keys.token(good, alg: "RS256", key: "rsa")
            },
            Case(what: "JWKS: the encryption key's kid", keys: "jwks", refusal: .unknownKey) {
                try keys.token(good, alg: "RS256", key: "rsa", kid: "x1")
            },
            Case(what: "JWKS: ES256 naming an RSA kid", keys: "jwks", refusal: .unknownKey) {
                try keys.token(good, alg: "ES256", key: "ec", kid: "r1")
            },
            Case(what: "expired", keys: "secret", refusal: .expired, token: hs(claims(["exp": .number(now - 31)]))),
            Case(
                what: "expired within the leeway", keys: "secret", refusal: nil,
                token: hs(claims(["exp": .number(now - 29)]))),
            Case(what: "no exp", keys: "secret", refusal: .missingClaim, token: hs(claims(["exp": nil]))),
            Case(what: "exp a string", keys: "secret", refusal: .missingClaim, token: hs(claims(["exp": "2099"]))),
            Case(
                what: "exp beyond the year 10000", keys: "secret", refusal: .missingClaim,
                token: hs(claims(["exp": 1e300]))),
            Case(what: "exp before 1970", keys: "secret", refusal: .missingClaim, token: hs(claims(["exp": -1e300]))),
            Case(
                what: "nbf beyond the year 10000", keys: "secret", refusal: .missingClaim,
                token: hs(claims(["nbf": 1e300]))),
            Case(
                what: "nbf in the future", keys: "secret", refusal: .notYetValid,
                token: hs(claims(["nbf": .number(now + 120)]))),
            Case(
                what: "nbf within the leeway", keys: "secret", refusal: nil,
                token: hs(claims(["nbf": .number(now + 20)]))),
            Case(what: "no sub", keys: "secret", refusal: .missingClaim, token: hs(claims(["sub": nil]))),
            Case(what: "sub not an id", keys: "secret", refusal: .missingClaim, token: hs(claims(["sub": "a\u{7}b"]))),
            Case(
                what: "right issuer", keys: "secret", issuer: "https://id.example", refusal: nil,
                token: hs(claims(["iss": "https://id.example"]))),
            Case(
                what: "wrong issuer", keys: "secret", issuer: "https://id.example", refusal: .wrongIssuer,
                token: hs(claims(["iss": "https://evil.example"]))),
            Case(
                what: "no issuer", keys: "secret", issuer: "https://id.example", refusal: .wrongIssuer, token: hs(good)),
            Case(
                what: "audience in a list", keys: "secret", audience: "journey", refusal: nil,
                token: hs(claims(["aud": ["other", "journey"]]))),
            Case(
                what: "wrong audience", keys: "secret", audience: "journey", refusal: .wrongAudience,
                token: hs(claims(["aud": "other"]))),
            Case(what: "forged HS256 (another secret)", keys: "secret", refusal: .badSignature) {
                TokenMinter.hs256(claims: good, secret: Array("another-secret-of-at-least-32-bytes!!".utf8))
            },
            Case(what: "forged RS256 (another key)", keys: "rsa", refusal: .badSignature) {
                try keys.token(good, alg: "RS256", key: "rsa2")
            },
            Case(what: "forged ES256 (an RSA signature)", keys: "ec", refusal: .badSignature) {
                try keys.token(good, alg: "ES256", key: "rsa")
            },
            Case(what: "claims changed after signing", keys: "secret", refusal: .badSignature) {
                let parts = try keys.token(good, alg: "HS256", key: nil).split(separator: ".")
                let changed = Base64URL.encode(Array(JSON.object(claims(["sub": "u2"])).compactText.utf8))
                return "\(parts[0]).\(changed).\(parts[2])"
            },
            Case(what: "alg none", keys: "secret", refusal: .unsupportedAlgorithm) {
                TokenMinter.sign(header: ["alg": "none", "typ": "JWT"], claims: good) { _ in [] }
            },
            Case(what: "alg None with a public key", keys: "rsa", refusal: .unsupportedAlgorithm) {
                TokenMinter.sign(header: ["alg": "None"], claims: good) { _ in [] }
            },
            Case(what: "HS256 signed with the RSA public key's PEM", keys: "rsa", refusal: .unsupportedAlgorithm) {
                TokenMinter.hs256(claims: good, secret: Array(try keys.publicPEM("rsa").utf8))
            },
            Case(what: "RS256 token where a secret is configured", keys: "secret", refusal: .unsupportedAlgorithm) {
                try keys.token(good, alg: "RS256", key: "rsa")
            },
            Case(what: "RS256 token where an EC key is configured", keys: "ec", refusal: .unsupportedAlgorithm) {
                try keys.token(good, alg: "RS256", key: "rsa")
            },
            Case(what: "bad base64url in the signature", keys: "secret", refusal: .malformed) {
                try keys.token(good, alg: "HS256", key: nil) + "*"
            },
            Case(what: "padding in the header", keys: "secret", refusal: .malformed) {
                "=" + (try keys.token(good, alg: "HS256", key: nil))
            },
            Case(what: "header not JSON", keys: "secret", refusal: .malformed) {
                TestKeys.hs256(header: "{alg:HS256}", claims: "{}")
            },
            Case(what: "claims not an object", keys: "secret", refusal: .malformed) {
                TestKeys.hs256(header: #"{"alg":"HS256"}"#, claims: "[1]")
            },
            Case(what: "claims with a key twice", keys: "secret", refusal: .malformed) {
                TestKeys.hs256(header: #"{"alg":"HS256"}"#, claims: #"{"sub":"u1","exp":9999999999,"sub":"u2"}"#)
            },
            Case(what: "two parts", keys: "secret", refusal: .malformed) { "eyJhbGciOiJIUzI1NiJ9.e30" },
            Case(what: "empty", keys: "secret", refusal: .malformed) { "" },
            Case(what: "ES256 signature of the wrong size", keys: "ec", refusal: .badSignature) {
                let parts = try keys.token(good, alg: "ES256", key: "ec").split(separator: ".")
                let short = Array(Base64URL.decode(parts[2])!.dropLast())
                return "\(parts[0]).\(parts[1]).\(Base64URL.encode(short))"
            },
            Case(what: "crit header", keys: "secret", refusal: .malformed) {
                TokenMinter.sign(header: ["alg": "HS256", "crit": ["b64"], "b64": false], claims: good) {
                    HMACSHA256.mac(key: TestKeys.secret, message: $0)
                }
            },
        ]
    }()

    @Test(arguments: cases)
    func verification(_ example: Case) throws {
        let verifier = try Self.verifier(example.keys, issuer: example.issuer, audience: example.audience)
        let result = verifier.verify(try example.token(), now: Self.now)
        switch result {
        case .success(let token):
            #expect(example.refusal == nil, "accepted, but should be refused as \(example.refusal?.rawValue ?? "")")
            #expect(token.subject == "u1")
        case .failure(let refusal):
            #expect(refusal.code == example.refusal, "\(refusal)")
        }
    }

    /// The cache answers a token verified before only while the token would be accepted, and
    /// keeps nothing refused.
    @Test func theCacheKeepsOnlyWhatIsStillAccepted() throws {
        let verifier = try Self.verifier("ec")
        let cache = VerifiedTokenCache()
        let token = try TestKeys.shared.token(Self.claims, alg: "ES256", key: "ec")
        #expect(throws: Never.self) { try cache.verify(token, now: Self.now, with: verifier).get() }
        #expect(cache.count == 1)
        #expect(throws: Never.self) { try cache.verify(token, now: Self.now + 3600 + 29, with: verifier).get() }
        #expect(
            cache.verify(token, now: Self.now + 3600 + 31, with: verifier)
                == .failure(
                    TokenRefusal(.expired, "the token expired at 2026-11-29T13:00:00Z")))
        let forged = try TestKeys.shared.token(Self.claims, alg: "ES256", key: "rsa")
        #expect(throws: TokenRefusal.self) { try cache.verify(forged, now: Self.now, with: verifier).get() }
        #expect(cache.count == 1)
    }

    /// Key files that cannot be used say why.
    @Test(arguments: [
        ("missing", "there is no such file"),
        ("rsa.pem", "it holds a private key; give the public key (openssl pkey -pubout)"),
        ("ec384.pub.pem", "the EC key is on curve secp384r1; ES256 needs P-256 (prime256v1)"),
        ("rsa.pub.der", "it is not a PEM public key (-----BEGIN PUBLIC KEY-----)"),
    ])
    func unusablePublicKeyFiles(name: String, message: String) {
        #expect(throws: KeyError.self) { try TokenKeys.publicKey(file: TestKeys.shared.path(name)) }
        do {
            _ = try TokenKeys.publicKey(file: TestKeys.shared.path(name))
        } catch {
            #expect(error.message == message)
        }
    }

    @Test(arguments: [
        ("{}", "it is not a JWKS: no \"keys\" array"),
        ("{\"keys\": []}", "it has no RS256 or ES256 signing key"),
        (
            "{\"keys\": [{\"kty\": \"RSA\", \"kid\": \"a\", \"n\": \"**\", \"e\": \"AQAB\"}]}",
            "keys[0] (kid a): \"n\" is not base64url"
        ),
        (
            "{\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-256\", \"x\": \"AQAB\", \"y\": \"AQAB\"}]}",
            "keys[0]: x and y must be 32 bytes each"
        ),
        ("[1", "it is not JSON: …"),
    ])
    func unusableKeySets(text: String, message: String) throws {
        let path = TestKeys.shared.path("set-\(UUID().uuidString).json")
        precondition(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), "cannot create \(path)")
        do {
            _ = try TokenKeys.jwks(file: path)
            Issue.record("accepted \(text)")
        } catch {
            if message.hasSuffix("…") {
                #expect(error.message.hasPrefix(message.dropLast()))
            } else {
                #expect(error.message == message)
            }
        }
    }

    @Test func shortSecretsAreRefused() throws {
        let path = TestKeys.shared.path("short.secret")
        precondition(
            FileManager.default.createFile(atPath: path, contents: Data("0123456789abcdef0123456789abcde\n".utf8)),
            "cannot create \(path)")
        #expect(throws: KeyError.self) { try TokenKeys.secret(file: path) }
    }

    @Test(arguments: [[UInt8](), [0], [0xff, 0xfe], Array("any carnal pleasure.".utf8), Array(0...255)])
    func base64urlRoundTrips(bytes: [UInt8]) {
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test(arguments: ["a", "ab=", "a+b/", "QR", "QQ=="])
    func base64urlRefuses(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
