import Core

/// Checks bearer JSON Web Tokens (RFC 7519, compact JWS): the signature with the configured
/// keys, then the claims. The user a token acts for is its `sub`.
public struct TokenVerifier: Sendable {
    /// What signatures are checked with.
    public let keys: TokenKeys
    /// The `iss` a token must have (nil: not checked).
    public let issuer: String?
    /// The audience `aud` must name (nil: not checked).
    public let audience: String?
    /// Clock difference allowed on `exp` and `nbf`, in seconds.
    public let leeway: Double

    /// The times `exp` and `nbf` may name: from 1970 to the year 10000 (seconds).
    static let times = 0.0...253_402_300_799.0

    /// Longest token accepted (bytes): a larger one is refused before any decoding.
    public static let maximumLength = 8192

    public init(keys: TokenKeys, issuer: String? = nil, audience: String? = nil, leeway: Double = 30) {
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
    }

    /// The verified token, or why it is refused; `now` in seconds since 1970.
    public func verify(_ token: String, now: Double) -> Result<VerifiedToken, TokenRefusal> {
        Result { () throws(TokenRefusal) in try check(token, now: now) }
    }

    private func check(_ token: String, now: Double) throws(TokenRefusal) -> VerifiedToken {
        guard token.utf8.count <= Self.maximumLength else {
            throw TokenRefusal(.malformed, "the token is longer than \(Self.maximumLength) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TokenRefusal(
                .malformed,
                parts.count == 5
                    ? "encrypted tokens (JWE) are not accepted" : "a token is three base64url parts joined by dots")
        }
        let header = try Self.object(parts[0], "header")
        guard case .string(let algorithm)? = header["alg"] else {
            throw TokenRefusal(.malformed, "the header has no \"alg\"")
        }
        if header["crit"] != nil {
            throw TokenRefusal(.malformed, "the header has \"crit\" extensions, which are not understood")
        }
        guard algorithm.lowercased() != "none" else {
            throw TokenRefusal(.unsupportedAlgorithm, "unsigned tokens (alg none) are not accepted")
        }
        guard keys.algorithms.contains(algorithm) else {
            throw TokenRefusal(
                .unsupportedAlgorithm,
                "alg \(algorithm) is not accepted; the configured keys verify \(keys.algorithms.joined(separator: ", "))"
            )
        }
        guard let signature = Base64URL.decode(parts[2]) else {
            throw TokenRefusal(.malformed, "the signature is not base64url")
        }
        let message = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        try checkSignature(signature, of: message, algorithm: algorithm, kid: header["kid"]?.stringValue)
        let claims = try Self.object(parts[1], "claims")
        return try checkClaims(claims, now: now)
    }

    private func checkSignature(_ signature: [UInt8], of message: [UInt8], algorithm: String, kid: String?)
        throws(TokenRefusal)
    {
        switch keys {
        case .secret(let secret):
            guard constantTimeEqual(HMACSHA256.mac(key: secret, message: message), signature) else {
                throw TokenRefusal(.badSignature, "the token's signature does not verify")
            }
        case .publicKeys(let all):
            let usable = all.filter { $0.key.kind.algorithm == algorithm }
            let key: PublicKey
            if let kid, all.contains(where: { $0.kid != nil }) {
                guard let found = usable.first(where: { $0.kid == kid }) else {
                    throw TokenRefusal(.unknownKey, "no \(algorithm) key has kid \(kid)")
                }
                key = found.key
            } else {
                guard usable.count == 1 else {
                    throw TokenRefusal(
                        .unknownKey, "the token names no key (kid) and \(usable.count) keys could sign it")
                }
                key = usable[0].key
            }
            var der = signature
            if key.kind == .p256 {
                guard signature.count == 64 else {
                    throw TokenRefusal(
                        .badSignature, "an ES256 signature is 64 bytes (r and s), not \(signature.count)")
                }
                der = DER.ecdsaSignature(raw: signature)
            }
            guard key.verify(signature: der, message: message) else {
                throw TokenRefusal(.badSignature, "the token's signature does not verify")
            }
        }
    }

    private func checkClaims(_ claims: JSONObject, now: Double) throws(TokenRefusal) -> VerifiedToken {
        guard let expiry = claims["exp"] else {
            throw TokenRefusal(.missingClaim, "the token has no \"exp\" (expiry, seconds since 1970)")
        }
        guard case .number(let expires) = expiry, Self.times.contains(expires) else {
            throw TokenRefusal(.missingClaim, "\"exp\" must be seconds since 1970, before the year 10000")
        }
        guard now <= expires + leeway else {
            throw TokenRefusal(.expired, "the token expired at \(Timestamp.format(expires))")
        }
        if let value = claims["nbf"] {
            guard case .number(let notBefore) = value, Self.times.contains(notBefore) else {
                throw TokenRefusal(.missingClaim, "\"nbf\" must be seconds since 1970, before the year 10000")
            }
            guard now + leeway >= notBefore else {
                throw TokenRefusal(.notYetValid, "the token is not valid before \(Timestamp.format(notBefore))")
            }
        }
        if let issuer, claims["iss"]?.stringValue != issuer {
            throw TokenRefusal(.wrongIssuer, "the token's issuer is not \(issuer)")
        }
        if let audience {
            let named: [JSON] =
                switch claims["aud"] {
                case .string(let one)?: [.string(one)]
                case .array(let many)?: many
                default: []
                }
            guard named.contains(.string(audience)) else {
                throw TokenRefusal(.wrongAudience, "the token is not for audience \(audience)")
            }
        }
        guard case .string(let subject)? = claims["sub"] else {
            throw TokenRefusal(.missingClaim, "the token has no \"sub\" (the user it acts for)")
        }
        if let problem = Identifier.problem(subject) {
            throw TokenRefusal(.missingClaim, "\"sub\" is not a user id: it \(problem.requirement)")
        }
        return VerifiedToken(subject: subject, expiresAt: expires, claims: claims)
    }

    /// A part decoded to its JSON object.
    private static func object(_ part: Substring, _ name: String) throws(TokenRefusal) -> JSONObject {
        guard let bytes = Base64URL.decode(part) else {
            throw TokenRefusal(.malformed, "the \(name) is not base64url")
        }
        guard case .object(let object)? = try? JSONParser(maximumDepth: 16, rejectsDuplicateKeys: true).parse(bytes)
        else {
            throw TokenRefusal(.malformed, "the \(name) is not a JSON object")
        }
        return object
    }
}

/// A token whose signature and claims were accepted.
public struct VerifiedToken: Sendable, Equatable {
    /// `sub`: the user the token acts for.
    public var subject: String
    /// `exp`, seconds since 1970.
    public var expiresAt: Double
    /// Every claim.
    public var claims: JSONObject
}
