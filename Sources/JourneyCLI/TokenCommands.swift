import Auth
import CommandKit
import Core
import FeatureKit
import Server

/// `journey token mint`: an HS256 bearer token for the service's app routes, for tests and
/// local development (a deployment's identity provider issues the real ones).
enum TokenMintCommand: Command {
    static let spec = CommandSpec(
        name: "journey token mint",
        overview: "Make an HS256 bearer token for a user (for testing the service's app routes).",
        discussion: """
            Prints a JWT signed with the secret in --secret-file (the file `journey serve
            --jwt-secret-file` reads): `sub` the user, `iat` now, `exp` after --ttl, and `iss` and
            `aud` when given. Send it as `Authorization: Bearer <token>`.
            """,
        options: [
            OptionSpec(
                long: "secret-file", valueName: "path", help: "File holding the HS256 secret (at least 32 bytes)."),
            OptionSpec(long: "sub", valueName: "user", help: "The user the token acts for."),
            OptionSpec(long: "ttl", valueName: "duration", help: "How long the token is valid.", defaultValue: "1h"),
            OptionSpec(long: "iss", valueName: "issuer", help: "The issuer claim."),
            OptionSpec(long: "aud", valueName: "audience", help: "The audience claim."),
            OptionSpec(long: "now", valueName: "iso8601", help: "Issue as of this time.", defaultValue: "the clock"),
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError) -> ExitCode {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let path = try CommonOptions.required("secret-file", arguments, spec: spec)
        let user = try CommonOptions.required("sub", arguments, spec: spec)
        if let problem = Identifier.problem(user) {
            throw UsageError(
                message: "The value '\(user)' for '--sub' is not a user id: it \(problem.requirement)", command: spec)
        }
        let ttlText = arguments.values["ttl"]?.last ?? "1h"
        guard let ttl = DurationText.parse(ttlText), ttl > .zero else {
            throw UsageError(
                message: "The value '\(ttlText)' for '--ttl <duration>' is not a duration such as 1h or 15m",
                command: spec)
        }
        let now = try CommonOptions.now(arguments, spec: spec).rounded(.down)
        let secret: [UInt8]
        do {
            guard case .secret(let bytes) = try TokenKeys.secret(file: path) else { return .failure }
            secret = bytes
        } catch {
            throw UsageError(message: "The --secret-file '\(path)' cannot be used: \(error.message)", command: spec)
        }
        var claims: JSONObject = ["sub": .string(user)]
        if let issuer = arguments.values["iss"]?.last { claims["iss"] = .string(issuer) }
        if let audience = arguments.values["aud"]?.last { claims["aud"] = .string(audience) }
        claims["iat"] = .number(now)
        claims["exp"] = .number(now + ttl.seconds.rounded(.down))
        io.stdout.line(TokenMinter.hs256(claims: claims, secret: secret))
        return .success
    }
}

/// `journey token verify`: checks a token as `journey serve` would, and says whom it is for.
enum TokenVerifyCommand: Command {
    static let spec = CommandSpec(
        name: "journey token verify",
        overview: "Check a bearer token with the service's key flags and show its user and expiry.",
        discussion: """
            Exit code 0 when the service would accept TOKEN (it prints the user and the expiry),
            1 when not (it prints why).
            """,
        arguments: [ArgumentSpec(name: "token", help: "The token (the part after `Bearer `).")],
        options: [
            OptionSpec(long: "jwt-secret-file", valueName: "path", help: "File holding the HS256 secret."),
            OptionSpec(long: "jwt-public-key-file", valueName: "path", help: "PEM public key (RS256 or ES256)."),
            OptionSpec(long: "jwks-file", valueName: "path", help: "JWKS file (keys by kid)."),
            OptionSpec(long: "jwt-issuer", valueName: "iss", help: "The issuer tokens must have."),
            OptionSpec(long: "jwt-audience", valueName: "aud", help: "The audience tokens must name."),
            OptionSpec(long: "now", valueName: "iso8601", help: "Check as of this time.", defaultValue: "the clock"),
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            throw UsageError(message: "Give one token", command: spec)
        }
        let given = [TokenSettings.Source.secret, .publicKey, .jwks].compactMap { source in
            arguments.values[source.rawValue]?.last.map { (source, $0) }
        }
        guard given.count == 1, let (source, path) = given.first else {
            throw UsageError(
                message: "Give one of --jwt-secret-file, --jwt-public-key-file, --jwks-file", command: spec)
        }
        let settings: TokenSettings
        do {
            settings = try TokenSettings(
                source: source, path: path, issuer: arguments.values["jwt-issuer"]?.last,
                audience: arguments.values["jwt-audience"]?.last)
        } catch {
            throw UsageError(message: error.message, command: spec)
        }
        switch settings.verifier.verify(arguments.positionals[0], now: try CommonOptions.now(arguments, spec: spec)) {
        case .success(let token):
            io.stdout.line("ok: user \(token.subject), expires \(Timestamp.format(token.expiresAt))")
            return .success
        case .failure(let refusal):
            io.stdout.line("refused (\(refusal.code.rawValue)): \(refusal.message)")
            return .failure
        }
    }
}
