import Core
import FeatureKit

/// The service credentials a service accepts (admins, the push sender, the analytics exporter,
/// the metrics scraper), each with the name the audit trail records and its scopes.
///
/// Written as the admin token text (`JOURNEY_ADMIN_TOKEN` or `--admin-token-file`): either one
/// token, named `admin` with the `admin` scope, or one credential per line, `NAME TOKEN` (an
/// admin) or `NAME SCOPE[,SCOPE…] TOKEN` (blank lines and `#` comments skipped). Names follow
/// the id rule; tokens are at least 16 characters; both are unique. Only the SHA-256 of each
/// token is kept. The admin API's roles are scopes too: `viewer`, `editor`, `publisher` and
/// `admin` (see ``FeatureKit/AdminRole``).
public struct AdminCredentials: Sendable, Equatable {
    /// One credential: its name, scopes and the digest of its token.
    public struct Credential: Sendable, Equatable {
        /// The name the audit trail and the access log record.
        public var name: String
        /// What it may call.
        public var scopes: Set<ServiceScope>
        /// The SHA-256 of the token.
        public var digest: [UInt8]
    }

    /// Every credential, in the order written.
    public let credentials: [Credential]

    /// The name the single-token form gives its credential.
    public static let defaultName = "admin"

    /// Reads the token text; throws with the line of the first problem.
    public init(_ text: String) throws(AdminCredentialsError) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, raw -> (Int, [Substring])? in
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            return (index + 1, line.split(whereSeparator: { $0 == " " || $0 == "\t" }))
        }
        var entries: [(line: Int, name: String, scopes: Set<ServiceScope>, token: String)] = []
        if lines.count == 1, lines[0].1.count == 1 {
            entries = [(lines[0].0, Self.defaultName, [.admin], String(lines[0].1[0]))]
        } else {
            for (number, parts) in lines {
                switch parts.count {
                case 2:
                    entries.append((number, String(parts[0]), [.admin], String(parts[1])))
                case 3:
                    entries.append(
                        (number, String(parts[0]), try Self.scopes(parts[1], line: number), String(parts[2])))
                default:
                    throw AdminCredentialsError(
                        line: number, "write one credential per line: NAME TOKEN, or NAME SCOPE[,SCOPE] TOKEN")
                }
            }
        }
        guard !entries.isEmpty else { throw AdminCredentialsError(line: 1, "no admin token given") }
        var credentials: [Credential] = []
        for entry in entries {
            let number = lines.count == 1 ? 1 : entry.line
            if let problem = Identifier.problem(entry.name) {
                throw AdminCredentialsError(line: number, "the name `\(entry.name)` \(problem.requirement)")
            }
            guard entry.token.count >= 16 else {
                throw AdminCredentialsError(
                    line: number, "the \(entry.scopes == [.admin] ? "admin " : "")token must be at least 16 characters")
            }
            let digest = SHA256.digest(entry.token.utf8)
            if credentials.contains(where: { $0.name == entry.name }) {
                throw AdminCredentialsError(line: number, "the name `\(entry.name)` is given twice")
            }
            if credentials.contains(where: { $0.digest == digest }) {
                throw AdminCredentialsError(line: number, "two credentials have the same token")
            }
            credentials.append(Credential(name: entry.name, scopes: entry.scopes, digest: digest))
        }
        self.credentials = credentials
    }

    /// The credential `token` is, its digest compared in constant time against every one (the
    /// time taken says nothing about which one matched, or how much of a token did).
    public func credential(of token: String) -> Credential? {
        let digest = SHA256.digest(token.utf8)
        var found: Credential?
        for credential in credentials where constantTimeEqual(digest, credential.digest) {
            found = credential
        }
        return found
    }

    /// The name of the credential `token` is.
    public func name(of token: String) -> String? { credential(of: token)?.name }

    /// Whether any credential has `scope`.
    /// Whether any credential has `scope` (for `admin`: any admin role).
    public func hasScope(_ scope: ServiceScope) -> Bool {
        if scope == .admin { return credentials.contains { $0.scopes.adminRole != nil } }
        return credentials.contains { $0.scopes.contains(scope) }
    }

    private static func scopes(_ text: Substring, line: Int) throws(AdminCredentialsError) -> Set<ServiceScope> {
        var scopes: Set<ServiceScope> = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let scope = ServiceScope(rawValue: String(word)) else {
                throw AdminCredentialsError(
                    line: line,
                    "unknown scope `\(word)`; the scopes are \(ServiceScope.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            scopes.insert(scope)
        }
        return scopes
    }
}

/// A problem with the admin token text, at its line.
public struct AdminCredentialsError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { "line \(line): \(message)" }
}
