import Foundation
import TestSupport
import Testing

/// `journey token mint` and `journey token verify`: a token made for a user checks out until it
/// expires; arguments that cannot work are usage errors (exit 64).
@Suite struct TokenCommandTests {
    static let secret = "a-shared-secret-of-at-least-32-bytes\n"

    @Test func aMintedTokenVerifiesUntilItExpires() throws {
        let folder = try TemporaryDirectory(["jwt.secret": Self.secret])
        let mint = journey(
            "token", "mint", "--secret-file", folder.file("jwt.secret"), "--sub", "owner-1", "--ttl", "15m",
            "--aud", "journey-app", "--now", "2026-11-29T12:00:00Z")
        #expect(mint.status == 0, "\(mint.stderr)")
        let token = mint.stdout.trimmingCharacters(in: .newlines)
        #expect(token.split(separator: ".").count == 3)
        func verify(_ now: String, _ extra: String...) -> CLIRun {
            journey(
                ["token", "verify", "--jwt-secret-file", folder.file("jwt.secret"), "--now", now] + extra + [token])
        }
        let ok = verify("2026-11-29T12:10:00Z", "--jwt-audience", "journey-app")
        #expect(ok.status == 0 && ok.stdout == "ok: user owner-1, expires 2026-11-29T12:15:00Z\n", "\(ok.stdout)")
        let late = verify("2026-11-29T12:16:00Z")
        #expect(late.status == 1 && late.stdout == "refused (expired): the token expired at 2026-11-29T12:15:00Z\n")
        let other = verify("2026-11-29T12:10:00Z", "--jwt-audience", "admin-app")
        #expect(other.status == 1 && other.stdout.hasPrefix("refused (wrong_audience)"))
    }

    static let usageErrors: [([String], String)] = [
        (["token", "mint", "--sub", "u1"], "Missing --secret-file"),
        (["token", "mint", "--secret-file", "SECRET"], "Missing --sub"),
        (["token", "mint", "--secret-file", "SECRET", "--sub", "u1", "--ttl", "soon"], "is not a duration"),
        (["token", "mint", "--secret-file", "SHORT", "--sub", "u1"], "the secret is 5 bytes; HS256 needs at least 32"),
        (["token", "mint", "--secret-file", "missing", "--sub", "u1"], "there is no such file"),
        (["token", "verify", "t"], "Give one of --jwt-secret-file, --jwt-public-key-file, --jwks-file"),
        (["token", "verify", "--jwt-secret-file", "SECRET"], "Give one token"),
    ]

    @Test(arguments: usageErrors)
    func refused(arguments: [String], message: String) throws {
        let folder = try TemporaryDirectory(["jwt.secret": Self.secret, "short.secret": "short"])
        let run = journey(
            arguments.map {
                $0 == "SECRET" ? folder.file("jwt.secret") : $0 == "SHORT" ? folder.file("short.secret") : $0
            })
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(message), "\(run.stderr)")
    }
}
