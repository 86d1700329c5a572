import CommandKit
import FeatureKit
import Server

extension ServeCommand {
    /// The token flags: at most one key file, read and checked now (a worker reads it again);
    /// without one, a non-loopback address is refused unless --insecure-no-auth.
    static func authentication(_ arguments: ParsedArguments, _ configuration: inout ServiceConfiguration)
        throws(UsageError)
    {
        let given = [TokenSettings.Source.secret, .publicKey, .jwks].compactMap { source in
            arguments.values[source.rawValue]?.last.map { (source, $0) }
        }
        guard given.count <= 1 else {
            throw UsageError(
                message:
                    "Give one of \(given.map { "--\($0.0.rawValue)" }.joined(separator: ", ")): tokens are checked with one kind of key",
                command: spec)
        }
        configuration.insecureNoAuth = arguments.flag("insecure-no-auth")
        let issuer = arguments.values["jwt-issuer"]?.last
        let audience = arguments.values["jwt-audience"]?.last
        guard let (source, path) = given.first else {
            if issuer != nil || audience != nil {
                throw UsageError(
                    message:
                        "--jwt-issuer and --jwt-audience need --jwt-secret-file, --jwt-public-key-file or --jwks-file",
                    command: spec)
            }
            if !configuration.insecureNoAuth, !isLoopback(configuration.host) {
                throw UsageError(
                    message:
                        "Refusing to serve the app routes without authentication on \(configuration.host), which is not a loopback address: give --jwt-secret-file, --jwt-public-key-file or --jwks-file so that requests need a user's token, or --insecure-no-auth when a gateway in front checks them",
                    command: spec)
            }
            return
        }
        do {
            configuration.tokens = try TokenSettings(source: source, path: path, issuer: issuer, audience: audience)
        } catch {
            throw UsageError(message: error.message, command: spec)
        }
    }

    /// 127.0.0.0/8, ::1 and localhost.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The start-up line's word on authentication.
    static func authenticationSummary(_ configuration: ServiceConfiguration) -> String {
        if let tokens = configuration.tokens { return tokens.summary }
        return configuration.insecureNoAuth
            ? "app routes WITHOUT authentication (--insecure-no-auth)"
            : "app routes without authentication: loopback only"
    }
}
