import Core

/// The admin credentials a service accepts, each with the name the audit trail records.
///
/// Written as the admin token text (`JOURNEY_ADMIN_TOKEN` or `--admin-token-file`): either one
/// token, named `admin`, or one credential per line, `NAME TOKEN` (blank lines and `#` comments
/// skipped). Names follow the id rule; tokens are at least 16 characters; both are unique.
public struct AdminCredentials: Sendable, Equatable {
    public struct Credential: Sendable, Equatable {
        public var name: String
        public var token: String
    }

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
        var credentials: [Credential] = []
        if lines.count == 1, lines[0].1.count == 1 {
            credentials = [Credential(name: Self.defaultName, token: String(lines[0].1[0]))]
        } else {
            for (number, parts) in lines {
                guard parts.count == 2 else {
                    throw AdminCredentialsError(line: number, "write one credential per line: NAME TOKEN")
                }
                credentials.append(Credential(name: String(parts[0]), token: String(parts[1])))
            }
        }
        guard !credentials.isEmpty else { throw AdminCredentialsError(line: 1, "no admin token given") }
        for (index, credential) in credentials.enumerated() {
            let number = lines.count == 1 ? 1 : lines[index].0
            if let problem = Identifier.problem(credential.name) {
                throw AdminCredentialsError(line: number, "the name `\(credential.name)` \(problem.requirement)")
            }
            guard credential.token.count >= 16 else {
                throw AdminCredentialsError(line: number, "the admin token must be at least 16 characters")
            }
            if credentials[..<index].contains(where: { $0.name == credential.name }) {
                throw AdminCredentialsError(line: number, "the name `\(credential.name)` is given twice")
            }
            if credentials[..<index].contains(where: { $0.token == credential.token }) {
                throw AdminCredentialsError(line: number, "two credentials have the same token")
            }
        }
        self.credentials = credentials
    }

    /// The name of the credential `token` is, compared in constant time against every one (the
    /// time taken says nothing about which one matched, or how much of a token did).
    public func name(of token: String) -> String? {
        var found: String?
        for credential in credentials where AdminAuth.constantTimeEqual(token, credential.token) {
            found = credential.name
        }
        return found
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
