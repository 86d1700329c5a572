import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// `journey serve` with per-user limits, over HTTP on loopback: a user over their requests or
/// events per second gets 429 with Retry-After whichever worker answers (each request on a new
/// connection), other users and service credentials do not.
@Suite struct LiveRateLimitTests {
    static let limits = [
        "--user-rate-limit", "1", "--user-rate-burst", "5", "--user-event-limit", "1", "--user-event-burst", "10",
    ]

    @Test func aTokensUserIsLimitedAndOthersAreNot() throws {
        let service = try LiveService(
            workers: 2,
            arguments: ["--jwt-secret-file", "jwt.secret", "--admin-token-file", "credentials"] + Self.limits,
            seed: false
        ) { folder in
            try AuthFixture.secretText.write(toFile: folder + "/jwt.secret", atomically: true, encoding: .utf8)
            try AuthFixture.credentials.write(toFile: folder + "/credentials", atomically: true, encoding: .utf8)
        }
        defer { service.stop() }
        #expect(service.log.contains("per-user rate limits: 1 requests/s (burst 5), 1 events/s (burst 10)"))
        let ann = AuthFixture.token("ann")
        let statuses = try (0..<6).map { _ in try Self.send(service, "GET", "/v1/users/ann/habits/trackers", ann).status
        }
        #expect(statuses == [200, 200, 200, 200, 200, 429], "the burst, then 429")
        let refused = try Self.send(service, "GET", "/v1/users/ann/habits/trackers", ann)
        #expect(refused.status == 429 && refused.json["code"] == "rate_limited", "\(refused.json)")
        let wait = try #require(refused.header("Retry-After").flatMap { Int($0) })
        #expect(wait >= 1 && wait <= 2)
        #expect(
            refused.json["message"]?.stringValue?.hasPrefix("user ann is over the limit of 1 requests per second")
                == true)
        #expect(try Self.send(service, "GET", "/v1/users/bob/habits/trackers", AuthFixture.token("bob")).status == 200)
        // The push sender is a service: not limited per user.
        for _ in 0..<8 {
            let due = try Self.send(
                service, "GET", "/v1/reminders/due?before=2100-01-01T00:00:00Z", AuthFixture.pusherToken)
            #expect(due.status == 200, "\(due.json)")
        }
        // Events: a batch of 10 fills carol's burst; one more event waits.
        let batch: JSON = ["events": .array((0..<10).map { Self.event("carol", "c\($0)") })]
        #expect(try Self.send(service, "POST", "/v1/events", AuthFixture.token("carol"), batch).status == 200)
        let more = try Self.send(
            service, "POST", "/v1/events", AuthFixture.token("carol"), ["events": [Self.event("carol", "c10")]])
        #expect(
            more.status == 429 && more.json["message"]?.stringValue?.contains("events per second") == true,
            "\(more.json)")
        // After the wait, ann is served again: time must pass for the limiter (asking sooner
        // would spend the token it is waiting for).
        letTimePass(.milliseconds(wait * 1000 + 100), for: "the Retry-After that ann was given")
        #expect(try Self.send(service, "GET", "/v1/users/ann/habits/trackers", ann).status == 200)
    }

    /// Without tokens (loopback), the user the path names is limited when a flag asks; by
    /// default nothing is.
    @Test func withoutTokensTheUserInThePathIsLimited() throws {
        let service = try LiveService(
            workers: 2, arguments: ["--user-rate-limit", "1", "--user-rate-burst", "3"], seed: false)
        defer { service.stop() }
        let statuses = try (0..<4).map { _ in try Self.send(service, "GET", "/v1/users/x/habits/stats", nil).status }
        #expect(statuses == [200, 200, 200, 429])
        #expect(try Self.send(service, "GET", "/v1/users/y/habits/stats", nil).status == 200)
        #expect(try Self.send(service, "GET", "/healthz", nil).status == 200, "open routes are not limited")
        #expect(
            service.log.contains("per-user rate limits: 1 requests/s (burst 3) (shared by the workers)"),
            "\(service.log)")
    }

    /// Unauthenticated on loopback (development, the tests) nothing is limited by default.
    @Test func loopbackWithoutTokensIsNotLimitedByDefault() throws {
        let service = try LiveService(workers: 1, seed: false)
        defer { service.stop() }
        let statuses = try (0..<120).map { _ in try Self.send(service, "GET", "/v1/users/x/habits/stats", nil).status }
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(service.log.contains("journey serve: no per-user rate limits"), "\(service.log)")
    }

    static func event(_ user: String, _ id: String) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "app_opened",
            "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970)), "payload": [:],
        ]
    }

    /// One request on a new connection (so that either worker may answer it).
    static func send(_ service: LiveService, _ method: String, _ target: String, _ token: String?, _ body: JSON? = nil)
        throws -> (status: Int, json: JSON, header: (String) -> String?)
    {
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let client = service.client()
        defer { client.disconnect() }
        let response = try client.send(method, target, headers: headers, body: body.map { Array($0.compactText.utf8) })
        let responseHeaders = response.headers
        return (
            response.status, (try? JSONParser().parse(response.body)) ?? .null,
            { name in responseHeaders.first { $0.key.lowercased() == name.lowercased() }?.value }
        )
    }
}
