import Auth

/// How app requests are authenticated, as `journey serve`'s flags say: the key file (one of a
/// shared secret, a PEM public key or a JWKS), the issuer and audience a token must name, and
/// the verifier they make.
public struct TokenSettings: Sendable {
    /// The kind of key file, named as its flag.
    public enum Source: String, Sendable {
        case secret = "jwt-secret-file"
        case publicKey = "jwt-public-key-file"
        case jwks = "jwks-file"
    }

    /// Which key flag was given.
    public let source: Source
    /// The key file, as given.
    public let path: String
    /// `--jwt-issuer`.
    public let issuer: String?
    /// `--jwt-audience`.
    public let audience: String?
    /// The verifier of the keys read.
    public let verifier: TokenVerifier

    /// Reads the key file; throws a sentence naming the flag, the path and the problem.
    public init(source: Source, path: String, issuer: String?, audience: String?) throws(TokenSettingsError) {
        let keys: TokenKeys
        do throws(KeyError) {
            switch source {
            case .secret: keys = try TokenKeys.secret(file: path)
            case .publicKey: keys = try TokenKeys.publicKey(file: path)
            case .jwks: keys = try TokenKeys.jwks(file: path)
            }
        } catch {
            throw TokenSettingsError(message: "The --\(source.rawValue) '\(path)' cannot be used: \(error.message)")
        }
        self.source = source
        self.path = path
        self.issuer = issuer
        self.audience = audience
        self.verifier = TokenVerifier(keys: keys, issuer: issuer, audience: audience)
    }

    /// The same settings as flags, for the worker processes.
    public var flags: [String] {
        var flags = ["--\(source.rawValue)", path]
        if let issuer { flags += ["--jwt-issuer", issuer] }
        if let audience { flags += ["--jwt-audience", audience] }
        return flags
    }

    /// What the start-up line says: `bearer tokens RS256 (--jwks-file keys.json)`.
    public var summary: String {
        "app routes need bearer tokens (\(verifier.keys.algorithms.joined(separator: ", ")) from \(path))"
    }
}

/// A token setting that cannot be used, in words.
public struct TokenSettingsError: Error, Sendable, CustomStringConvertible {
    /// The sentence, naming the flag and the path.
    public var message: String
    public var description: String { message }
}
