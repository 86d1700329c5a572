import Core
import RevisionStore
import Revisions
import Server
import TestSupport
import Testing

/// Named admin credentials: the token text's forms, its refusals (with their line), and the
/// name the audit trail records for each credential.
@Suite struct AdminCredentialTests {
    static let ann = "ann-token-0123456789abcdef"
    static let bob = "bob-token-0123456789abcdef"

    static let readableTexts: [(String, [String])] = [
        ("single-token-0123456789", ["admin"]),
        ("  single-token-0123456789  \n", ["admin"]),
        ("# who may publish\nann \(ann)\n\nbob\t\(bob)\n", ["ann", "bob"]),
        ("ann \(ann)", ["ann"]),
    ]

    @Test(arguments: readableTexts)
    func readable(text: String, names: [String]) throws {
        #expect(try AdminCredentials(text).credentials.map(\.name) == names)
    }

    /// The scopes each form gives: the old forms are admins.
    @Test func scopes() throws {
        let credentials = try AdminCredentials(
            "ann \(Self.ann)\npusher reminders \(Self.bob)\nscraper metrics,analytics single-token-0123456789")
        #expect(credentials.credentials.map(\.scopes) == [[.admin], [.reminders], [.metrics, .analytics]])
        #expect(try AdminCredentials("single-token-0123456789").credentials[0].scopes == [.admin])
        #expect(credentials.credential(of: Self.bob)?.name == "pusher")
        #expect(credentials.credential(of: Self.bob + "x") == nil)
        #expect(credentials.credential(of: String(Self.bob.dropLast())) == nil)
    }

    /// Only the SHA-256 of a token is kept.
    @Test func tokensAreKeptHashed() throws {
        let credential = try AdminCredentials("ann \(Self.ann)").credentials[0]
        #expect(credential.digest == SHA256.digest(Self.ann.utf8))
        #expect(!String(describing: credential).contains(Self.ann))
    }

    static let refusedTexts: [(String, String)] = [
        ("short", "line 1: the admin token must be at least 16 characters"),
        ("ann \(ann)\nbob", "line 2: write one credential per line: NAME TOKEN, or NAME SCOPE[,SCOPE] TOKEN"),
        ("ann \(ann)\nbob a b c", "line 2: write one credential per line: NAME TOKEN, or NAME SCOPE[,SCOPE] TOKEN"),
        (
            "pusher push \(bob)",
            "line 1: unknown scope `push`; the scopes are reminders, analytics, metrics, admin, viewer, editor, publisher"
        ),
        (
            "pusher reminders, \(bob)",
            "line 1: unknown scope ``; the scopes are reminders, analytics, metrics, admin, viewer, editor, publisher"
        ),
        ("pusher reminders short-token", "line 1: the token must be at least 16 characters"),
        ("ann \(ann)\nann \(bob)", "line 2: the name `ann` is given twice"),
        ("ann \(ann)\nbob \(ann)", "line 2: two credentials have the same token"),
        ("ann \(ann)\nbob short-token", "line 2: the admin token must be at least 16 characters"),
        ("# nothing\n", "line 1: no admin token given"),
        ("ann\u{7}x \(ann)", "line 1: the name `ann\u{7}x` must not contain control characters"),
    ]

    @Test(arguments: refusedTexts)
    func refused(text: String, message: String) {
        #expect(throws: AdminCredentialsError.self) { try AdminCredentials(text) }
        #expect((try? AdminCredentials(text)) == nil)
        do {
            _ = try AdminCredentials(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func eachCredentialIsNamedInTheAuditTrail() throws {
        let harness = try ServiceHarness(token: "ann \(Self.ann)\nbob \(Self.bob)", seed: false)
        func send(_ method: String, _ target: String, _ token: String, json: JSON? = nil) -> ServiceHarness.Response {
            harness.send(method, target, json: json, headers: ["Authorization": "Bearer \(token)"])
        }
        #expect(send("GET", "/v1/rules", "not-a-token-0123456789").status == 401)
        #expect(send("GET", "/v1/rules", Self.ann).status == 200)
        #expect(harness.send("GET", "/v1/rules", admin: true).status == 401, "the single test token is not one of them")
        let files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        let published = send(
            "POST", "/v1/rules/revisions", Self.ann,
            json: ["message": "the bundled rules", "files": RevisionRouteTests.filesJSON(files.files)])
        #expect(
            published.status == 201 && published.json["published_revision"]?["author"] == "ann",
            "\(published.text.prefix(200))")
        let activated = send(
            "POST", "/v1/rules/revisions/\(files.revision.prefix(12))/activate", Self.bob, json: ["message": "again"])
        #expect(activated.status == 200)
        let audit = send("GET", "/v1/audit", Self.ann).json["audit"]?.arrayValue ?? []
        #expect(audit.map { $0["actor"]?.stringValue ?? "" } == ["bob", "ann"])
    }
}
