import Core
import Foundation

/// What the service checks token signatures with: one shared secret (HS256), or public keys
/// (RS256, ES256), each with the `kid` a JWKS gave it.
///
/// A token is only ever checked with the one kind configured: with public keys an HS256
/// token is refused, so a public key can never be used as an HMAC secret.
public enum TokenKeys: Sendable {
    /// A shared secret: HS256.
    case secret([UInt8])
    /// Public keys, with the `kid` a JWKS gave each: RS256 and ES256.
    case publicKeys([(kid: String?, key: PublicKey)])

    /// Shortest HS256 secret: the size of its hash (RFC 7518 §3.2).
    public static let minimumSecretBytes = 32

    /// The shared secret in the file at `path` (its text, without a final line break).
    public static func secret(file path: String) throws(KeyError) -> TokenKeys {
        let bytes = try read(path)
        var secret = bytes[...]
        while let last = secret.last, last == 0x0a || last == 0x0d { secret = secret.dropLast() }
        guard secret.count >= minimumSecretBytes else {
            throw KeyError(
                "the secret is \(secret.count) bytes; HS256 needs at least \(minimumSecretBytes) (openssl rand -hex 32 makes one)"
            )
        }
        return .secret(Array(secret))
    }

    /// The PEM public key in the file at `path`.
    public static func publicKey(file path: String) throws(KeyError) -> TokenKeys {
        let bytes = try read(path)
        return .publicKeys([(nil, try PublicKey(pem: String(decoding: bytes, as: UTF8.self)))])
    }

    /// The keys of the JWKS in the file at `path` (RFC 7517): RSA and EC P-256 signing keys;
    /// keys for encryption or of other types are left out.
    public static func jwks(file path: String) throws(KeyError) -> TokenKeys {
        let bytes = try read(path)
        return .publicKeys(try JWKS.keys(bytes))
    }

    /// The algorithms tokens may use.
    public var algorithms: [String] {
        switch self {
        case .secret: ["HS256"]
        case .publicKeys(let keys): Array(Set(keys.map(\.key.kind.algorithm))).sorted()
        }
    }

    private static func read(_ path: String) throws(KeyError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyError(
                FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "there is no such file")
        }
        guard !data.isEmpty else { throw KeyError("the file is empty") }
        return Array(data)
    }
}
