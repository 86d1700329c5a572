import Auth
import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// `journey serve` with `--jwt-secret-file` on loopback: app requests need a user's token and
/// act for that user only; service credentials call the reminders routes and `/metrics` by
/// scope; without token flags a non-loopback address is refused.
@Suite struct LiveAuthTests {
    /// One service for every check (each check is a function below, run in order).
    @Test func appRequestsNeedATokenAndActForItsUserOnly() throws {
        let service = try LiveService.withTokens()
        defer { service.stop() }
        let checks = Checks(service: service)
        try checks.withoutATokenAppRoutesAnswer401()
        try checks.refusedTokensAnswer401()
        try checks.aUserReadsTheirOwnDogAndNoOneElses()
        try checks.registeringAnotherUsersDogIdIsAConflictThatShowsNothingOfIt()
        try checks.eventsOfAnotherUserAre403()
        try checks.userPathsAndQueriesAreTheTokensUser()
        try checks.theRemindersScopeReadsDueReminders()
        try checks.theMetricsScopeScrapesMetrics()
        try checks.theAnalyticsScopeDrainsTheOutbox()
        try checks.adminCredentialsAreNamedAndMayReadAnyDog()
        #expect(service.log.contains("app routes need bearer tokens (HS256 from jwt.secret)"), "\(service.log)")
        #expect(
            service.log.contains("per-user rate limits: 50 requests/s (burst 100), 100 events/s (burst 1000)"),
            "with tokens, the default limits: \(service.log)")
        // The access log says whom each request was for.
        #expect(service.stop() == 0, "\(service.log)")
        let log = try String(contentsOfFile: service.folder + "/access.log", encoding: .utf8)
        #expect(log.contains(#""route":"GET /v1/dogs/{dog_id}/today","status":200"#))
        #expect(log.contains(#""user":"ann""#) && log.contains(#""credential":"pusher""#))
    }
}

/// The checks of ``LiveAuthTests``, against one running service.
private struct Checks {
    let service: LiveService
    let ann = AuthFixture.token("ann")
    let bob = AuthFixture.token("bob")
    let dog = "rex-1"

    /// Sends `body` with `token` (nil: no Authorization header).
    func send(_ method: String, _ target: String, _ token: String?, _ body: JSON? = nil) throws
        -> (status: Int, json: JSON, headers: [String: String])
    {
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let response = try service.client().send(
            method, target, headers: headers, body: body.map { Array($0.compactText.utf8) })
        return (response.status, (try? JSONParser().parse(response.body)) ?? .null, response.headers)
    }

    func header(_ headers: [String: String], _ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    func withoutATokenAppRoutesAnswer401() throws {
        for (method, target) in [
            ("GET", "/v1/dogs/rex-1/today"), ("POST", "/v1/events"), ("GET", "/v1/users/ann/habits/trackers"),
            ("GET", "/v1/challenges"),
        ] {
            let (status, json, headers) = try send(method, target, nil, method == "POST" ? ["events": []] : nil)
            #expect(status == 401, "\(method) \(target): \(json)")
            #expect(json["code"] == "unauthorized")
            #expect(header(headers, "WWW-Authenticate")?.hasPrefix("Bearer") == true)
        }
        #expect(try send("GET", "/healthz", nil).status == 200, "liveness stays open")
        #expect(try send("GET", "/openapi.json", nil).status == 200)
    }

    func refusedTokensAnswer401() throws {
        let (status, json, _) = try send("POST", "/v1/dogs", ann, AuthFixture.registration(dog, user: "ann"))
        #expect(status == 201, "registering: \(json)")
        for (what, token) in AuthFixture.refusedTokens {
            let (status, json, headers) = try send("GET", "/v1/dogs/\(dog)/today", token)
            #expect(status == 401, "\(what): \(json)")
            #expect(json["code"] == "invalid_token" || json["code"] == "unauthorized", "\(what): \(json)")
            #expect(header(headers, "WWW-Authenticate")?.hasPrefix("Bearer") == true)
        }
    }

    func aUserReadsTheirOwnDogAndNoOneElses() throws {
        #expect(try send("GET", "/v1/dogs/\(dog)/today", ann).status == 200)
        #expect(try send("GET", "/v1/dogs/\(dog)/records", ann).status == 200)
        #expect(try send("GET", "/v1/dogs/\(dog)/manifest", ann).status == 200)
        // Bob sees Ann's dog as one that does not exist: the same 404 as an unknown id.
        let other = try send("GET", "/v1/dogs/\(dog)/today", bob)
        let unknown = try send("GET", "/v1/dogs/no-such-dog/today", bob)
        #expect(other.status == 404 && unknown.status == 404)
        #expect(other.json["code"] == "unknown_dog" && unknown.json["code"] == "unknown_dog")
        #expect(other.json["message"]?.stringValue == "no dog \(dog)")
        for target in [
            "/v1/dogs/\(dog)/journey", "/v1/dogs/\(dog)/map", "/v1/dogs/\(dog)/records", "/v1/dogs/\(dog)/manifest",
            "/v1/dogs/\(dog)/blocks/recall-basics",
        ] {
            #expect(try send("GET", target, bob).status == 404, "\(target)")
        }
        let step = try send("POST", "/v1/dogs/\(dog)/blocks/recall-basics/start", bob, [:])
        #expect(step.status == 404, "\(step.json)")
    }

    func registeringAnotherUsersDogIdIsAConflictThatShowsNothingOfIt() throws {
        let (status, json, _) = try send("POST", "/v1/dogs", bob, AuthFixture.registration(dog, user: "bob"))
        #expect(status == 409, "\(json)")
        #expect(json["code"] == "conflict")
        #expect(json["message"]?.stringValue == "dog \(dog) is registered by another user", "nothing of the owner")
        #expect(try send("GET", "/v1/dogs/\(dog)/today", bob).status == 404)
        // The owner registering again keeps the existing behaviour: 200, already registered.
        let again = try send("POST", "/v1/dogs", ann, AuthFixture.registration(dog, user: "ann"))
        #expect(again.status == 200, "\(again.json)")
        // Registering for someone else is refused outright.
        let forOther = try send("POST", "/v1/dogs", bob, AuthFixture.registration("bobs-dog", user: "ann"))
        #expect(forOther.status == 403, "\(forOther.json)")
    }

    func eventsOfAnotherUserAre403() throws {
        func weight(_ user: String, _ id: String) -> JSON {
            [
                "event_id": .string(id), "user_id": .string(user), "type": "weight_saved", "dog_id": .string(dog),
                "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970 - 60)), "payload": ["kg": 12.5],
            ]
        }
        let mixed = try send("POST", "/v1/events", ann, ["events": [weight("ann", "w-a1"), weight("bob", "w-b1")]])
        #expect(mixed.status == 403, "\(mixed.json)")
        #expect(mixed.json["errors"]?[0]?["field"] == "events[1].user_id")
        let asBob = try send("POST", "/v1/events", bob, ["events": [weight("ann", "w-a2")]])
        #expect(asBob.status == 403)
        // Bob's own event for Ann's dog is refused by the ingest path (the dog is not his).
        let bobsForAnnsDog = try send("POST", "/v1/events", bob, ["events": [weight("bob", "w-b2")]])
        #expect(bobsForAnnsDog.json["results"]?[0]?["code"] == "unknown_dog", "\(bobsForAnnsDog.json)")
        let own = try send("POST", "/v1/events", ann, ["events": [weight("ann", "w-a3")]])
        #expect(own.status == 200 && own.json["accepted"] == 1, "\(own.json)")
    }

    func userPathsAndQueriesAreTheTokensUser() throws {
        #expect(try send("GET", "/v1/users/ann/habits/trackers", ann).status == 200)
        #expect(try send("GET", "/v1/users/ann/onboarding", ann).status != 403)
        let other = try send("GET", "/v1/users/bob/habits/trackers", ann)
        #expect(other.status == 403 && other.json["code"] == "forbidden", "\(other.json)")
        #expect(try send("GET", "/v1/users/bob/onboarding", ann).status == 403)
        #expect(try send("GET", "/v1/users/ann/onboarding/flows", ann).status == 200)
        #expect(try send("GET", "/v1/users/bob/onboarding/flows", ann).status == 403)
        #expect(try send("GET", "/v1/users/ann/dogs", ann).status == 200)
        #expect(try send("GET", "/v1/users/bob/dogs", ann).status == 403)
        #expect(try send("GET", "/v1/users/bob/rewards", ann).status == 403)
        let check = try send(
            "POST", "/v1/users/bob/habits/checkins", ann, ["tracker_id": "walk", "date": "2026-11-30"])
        #expect(check.status == 403)
        #expect(try send("GET", "/v1/challenges?user_id=ann", ann).status == 200)
        #expect(try send("GET", "/v1/challenges?user_id=bob", ann).status == 403)
        let join = try send("POST", "/v1/challenges/walk-50k/join", ann, ["user_id": "bob"])
        #expect(join.status == 403, "\(join.json)")
    }

    func theRemindersScopeReadsDueReminders() throws {
        let pusher = AuthFixture.pusherToken
        let due = try send("GET", "/v1/reminders/due?before=2100-01-01T00:00:00Z", pusher)
        #expect(due.status == 200 && due.json["reminders"]?.arrayValue != nil, "\(due.json)")
        #expect(try send("POST", "/v1/reminders/sent", pusher, ["ids": []]).status == 200)
        #expect(try send("GET", "/v1/reminders/due", nil).status == 401)
        #expect(try send("GET", "/v1/reminders/due", ann).status == 403, "a user cannot read everyone's")
        #expect(try send("POST", "/v1/reminders/sent", ann, ["ids": [1]]).status == 403)
        #expect(try send("GET", "/v1/reminders/due", AuthFixture.scraperToken).status == 403)
        #expect(try send("GET", "/v1/dogs/rex-1/today", pusher).status == 403, "a service is no user")
    }

    func theMetricsScopeScrapesMetrics() throws {
        let scraped = try service.client().send(
            "GET", "/metrics", headers: ["Authorization": "Bearer \(AuthFixture.scraperToken)"])
        #expect(scraped.status == 200 && scraped.text.contains("journey_workers"))
        #expect(try send("GET", "/metrics", nil).status == 401)
        #expect(try send("GET", "/metrics", ann).status == 403)
        #expect(try send("GET", "/metrics", AuthFixture.pusherToken).status == 403)
    }

    func theAnalyticsScopeDrainsTheOutbox() throws {
        let exporter = AuthFixture.scraperToken  // its scopes: metrics, analytics
        let pending = try send("GET", "/v1/analytics/pending?limit=5", exporter)
        #expect(pending.status == 200 && pending.json["events"]?.arrayValue != nil, "\(pending.json)")
        #expect(try send("POST", "/v1/analytics/sent", exporter, ["ids": []]).status == 200)
        #expect(try send("GET", "/v1/analytics/pending", nil).status == 401)
        #expect(try send("GET", "/v1/analytics/pending", ann).status == 403, "a user cannot read everyone's")
        #expect(try send("GET", "/v1/analytics/pending", AuthFixture.pusherToken).status == 403)
        #expect(try send("POST", "/v1/analytics/sent", ann, ["ids": [1]]).status == 403)
    }

    func adminCredentialsAreNamedAndMayReadAnyDog() throws {
        let rules = try send("GET", "/v1/rules", AuthFixture.adminToken)
        #expect(rules.status == 200 && rules.json["signed_in_as"] == "ops")
        #expect(try send("GET", "/v1/rules", ann).status == 403)
        #expect(try send("GET", "/v1/rules", AuthFixture.pusherToken).status == 403)
        #expect(try send("GET", "/v1/dogs/\(dog)/today?explain=true", AuthFixture.adminToken).status == 200)
        #expect(try send("GET", "/v1/dogs/\(dog)/today?explain=true", ann).status == 403)
    }
}

/// Starting `journey serve` with flags that cannot work: exit 64 and a sentence.
@Suite struct ServeAuthenticationFlagTests {
    static func serve(_ arguments: [String], in folder: TemporaryDirectory) throws -> (Int32, String) {
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_ADMIN_TOKEN"] = nil
        let run = try ProcessRun(
            try BuiltExecutable.path("journey"),
            ["serve", "--port", "0", "--workers", "1", "--access-log", "off"] + arguments, in: folder.path,
            environment: environment)
        return (run.status, run.stderr)
    }

    static let refusals: [([String], String)] = [
        (["--host", "0.0.0.0"], "Refusing to serve the app routes without authentication on 0.0.0.0"),
        (
            ["--jwt-secret-file", "missing.secret"],
            "The --jwt-secret-file 'missing.secret' cannot be used: there is no such file"
        ),
        (
            ["--jwt-secret-file", "short.secret"],
            "The --jwt-secret-file 'short.secret' cannot be used: the secret is 5 bytes"
        ),
        (
            ["--jwt-public-key-file", "short.secret"],
            "The --jwt-public-key-file 'short.secret' cannot be used: it is not a PEM public key"
        ),
        (["--jwks-file", "short.secret"], "The --jwks-file 'short.secret' cannot be used: it is not JSON"),
        (
            ["--jwt-secret-file", "jwt.secret", "--jwks-file", "keys.json"],
            "Give one of --jwt-secret-file, --jwks-file"
        ),
        (["--jwt-issuer", "https://id.example"], "--jwt-issuer and --jwt-audience need"),
    ]

    @Test(arguments: refusals)
    func refused(arguments: [String], message: String) throws {
        let folder = try TemporaryDirectory(["short.secret": "short", "jwt.secret": AuthFixture.secretText])
        let (status, text) = try Self.serve(arguments, in: folder)
        #expect(status == 64, "\(text)")
        #expect(text.contains("Error: " + message), "\(text)")
    }
}

extension LiveService {
    /// A service with `--jwt-secret-file` and the fixture's service credentials.
    static func withTokens() throws -> LiveService {
        try LiveService(
            workers: 2, arguments: ["--jwt-secret-file", "jwt.secret", "--admin-token-file", "credentials"], seed: false
        ) { folder in
            try AuthFixture.secretText.write(toFile: folder + "/jwt.secret", atomically: true, encoding: .utf8)
            try AuthFixture.credentials.write(toFile: folder + "/credentials", atomically: true, encoding: .utf8)
        }
    }
}

/// `journey serve --jwks-file` with an issuer and an audience (the workers get them as flags):
/// RS256 and ES256 tokens by `kid`; an HS256 token, another issuer or audience are refused.
@Suite struct LiveKeySetTests {
    @Test func publicKeyTokensByKid() throws {
        let keys = TestKeys.shared
        let service = try LiveService(
            workers: 2,
            arguments: [
                "--jwks-file", keys.jwksPath, "--jwt-issuer", "https://id.example", "--jwt-audience", "journey-app",
            ],
            seed: false)
        defer { service.stop() }
        let now = Date().timeIntervalSince1970.rounded(.down)
        func claims(_ user: String, iss: String = "https://id.example", aud: JSON = "journey-app") -> JSONObject {
            ["sub": .string(user), "iss": .string(iss), "aud": aud, "exp": .number(now + 600), "nbf": .number(now - 5)]
        }
        func send(_ method: String, _ target: String, _ token: String, _ body: JSON? = nil) throws -> Int {
            try service.client().send(
                method, target, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: body.map { Array($0.compactText.utf8) }
            ).status
        }
        let rsa = try keys.token(claims("ann"), alg: "RS256", key: "rsa", kid: "r1")
        let ec = try keys.token(claims("ann", aud: ["other", "journey-app"]), alg: "ES256", key: "ec", kid: "e1")
        #expect(try send("POST", "/v1/dogs", rsa, AuthFixture.registration("kid-dog", user: "ann")) == 201)
        #expect(try send("GET", "/v1/dogs/kid-dog/today", rsa) == 200)
        #expect(try send("GET", "/v1/dogs/kid-dog/today", ec) == 200)
        let refused: [(String, String)] = [
            ("HS256", TokenMinter.hs256(claims: claims("ann"), secret: Array(try keys.publicPEM("rsa").utf8))),
            (
                "another issuer",
                try keys.token(claims("ann", iss: "https://evil.example"), alg: "RS256", key: "rsa", kid: "r1")
            ),
            ("another audience", try keys.token(claims("ann", aud: "other"), alg: "ES256", key: "ec", kid: "e1")),
            ("signed by r2, naming r1", try keys.token(claims("ann"), alg: "RS256", key: "rsa2", kid: "r1")),
            ("an unknown kid", try keys.token(claims("ann"), alg: "RS256", key: "rsa", kid: "nope")),
        ]
        for (what, token) in refused {
            #expect(try send("GET", "/v1/dogs/kid-dog/today", token) == 401, "\(what)")
        }
        let bob = try keys.token(claims("bob"), alg: "ES256", key: "ec", kid: "e1")
        #expect(try send("GET", "/v1/dogs/kid-dog/today", bob) == 404)
        #expect(
            service.log.contains("app routes need bearer tokens (ES256, RS256 from \(keys.jwksPath))"), "\(service.log)"
        )
    }
}
