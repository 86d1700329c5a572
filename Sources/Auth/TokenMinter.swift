import Core

/// Makes HS256 tokens (for tests and `journey token mint`): the header `{"alg":"HS256","typ":"JWT"}`
/// and `claims`, signed with `secret`.
public enum TokenMinter {
    /// An HS256 token of `claims`.
    public static func hs256(claims: JSONObject, secret: [UInt8]) -> String {
        sign(header: ["alg": "HS256", "typ": "JWT"], claims: claims) { HMACSHA256.mac(key: secret, message: $0) }
    }

    /// A compact JWS of `header` and `claims` with the signature `sign` gives for the signing
    /// input (any algorithm: tests forge tokens with it).
    public static func sign(header: JSONObject, claims: JSONObject, _ sign: ([UInt8]) -> [UInt8]) -> String {
        let input =
            Base64URL.encode(Array(JSON.object(header).compactText.utf8)) + "."
            + Base64URL.encode(Array(JSON.object(claims).compactText.utf8))
        return input + "." + Base64URL.encode(sign(Array(input.utf8)))
    }
}
