/// Why a bearer token is not accepted: a code (for logs and tests) and a sentence for the
/// client.
public struct TokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of refusal.
    public enum Code: String, Sendable {
        /// Not three base64url parts, or a header or claims that are not a JSON object.
        case malformed
        /// `alg` is `none`, or not the one the configured keys verify.
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// No configured key has the token's `kid`.
        case unknownKey = "unknown_key"
        /// The signature does not verify.
        case badSignature = "bad_signature"
        /// A claim the service needs is missing or of the wrong type.
        case missingClaim = "missing_claim"
        /// `exp` is past.
        case expired
        /// `nbf` is still to come.
        case notYetValid = "not_yet_valid"
        /// `iss` is not the configured issuer.
        case wrongIssuer = "wrong_issuer"
        /// `aud` does not name the configured audience.
        case wrongAudience = "wrong_audience"
    }

    /// What kind of refusal.
    public var code: Code
    /// Why, in a sentence for the client.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
