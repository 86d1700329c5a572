import Core
import FeatureKit
import Features
import Foundation
import HTTP
import Testing

@testable import Server

/// Every route declares who may call it, and the declarations hold what the paths say: a
/// `{dog_id}` is the user's dog, a `{user_id}` the user; the cross-user routes need a service scope.
@Suite struct RouteAccessTests {
    static let routes = JourneyService.makeRouter(features: Features.all).routes

    @Test func pathsThatNameADogOrAUserAreBoundToTheTokensUser() {
        for route in Self.routes {
            let bindings: [UserBinding]
            if case .user(let declared) = route.access { bindings = declared } else { bindings = [] }
            if route.pattern.contains("{dog_id}") {
                #expect(bindings.contains(.pathDog("dog_id")), "\(route.name) does not check the dog's owner")
            }
            if route.pattern.contains("{user_id}") {
                #expect(bindings.contains(.pathUser("user_id")), "\(route.name) does not check the user")
            }
        }
    }

    static let expected: [(String, RouteAccess)] = [
        ("GET /healthz", .open), ("GET /readyz", .open), ("GET /openapi.json", .open), ("GET /console", .open),
        ("GET /metrics", .service(.metrics)),
        ("GET /v1/reminders/due", .service(.reminders)), ("POST /v1/reminders/sent", .service(.reminders)),
        ("POST /v1/events", .user([.bodyEvents("events")])),
        ("POST /v1/dogs", .user([.bodyUser("user_id")])),
        ("POST /v1/challenges/{challenge_id}/join", .user([.bodyUser("user_id")])),
        ("GET /v1/challenges", .user([.queryUser("user_id")])),
        ("GET /v1/rules", .service(.admin)), ("POST /v1/eval", .service(.admin)),
        ("GET /v1/audit", .service(.admin)), ("GET /v1/experiments/{experiment}/report", .service(.admin)),
    ]

    @Test(arguments: expected)
    func declaredAccess(route name: String, access: RouteAccess) throws {
        let route = try #require(Self.routes.first { $0.name == name })
        #expect(route.access == access)
    }

    /// The bearer token of `Authorization`: the scheme in any case, spaces around the token
    /// dropped; anything else is refused.
    @Test(
        arguments: [
            ("Bearer tok-1", "tok-1"), ("bearer tok-1", "tok-1"), ("BEARER  tok-1  ", "tok-1"),
            ("  Bearer tok-1", "tok-1"),
            ("Bearer a b", "a b"), ("Basic dG9rLTE=", nil), ("Bearer", nil), ("Bearer    ", nil),
            ("Bearer\ttok-1", nil),
            ("Token tok-1", nil), ("", nil),
        ] as [(String, String?)])
    func bearerTokens(header: String, token: String?) {
        var request = HTTPRequest(method: "GET", path: "/", query: [], id: "test")
        request.headers["authorization"] = header
        let read = Result { () throws(APIError) in try RouteGuard.bearer(request, challenge: [], expecting: "token") }
        switch read {
        case .success(let found): #expect(found == token)
        case .failure(let refusal): #expect(token == nil && refusal.status == 401, "\(refusal.message)")
        }
    }

    /// Without token flags (the loopback default), app and service routes are open as before
    /// and admin routes still need the admin token.
    @Test func withoutTokensTheLoopbackDefaultIsUnchanged() throws {
        let harness = try ServiceHarness(seed: false)
        #expect(harness.send("GET", "/v1/reminders/due").status == 200)
        #expect(harness.send("GET", "/metrics").status == 200)
        #expect(harness.send("GET", "/v1/users/ann/habits/trackers").status == 200)
        #expect(harness.send("GET", "/v1/rules").status == 401)
        #expect(harness.send("GET", "/v1/rules", admin: true).status == 200)
    }
}

extension RouteAccessTests {
    /// Every app route can answer 429 (the per-user limits), and the API description says so.
    @Test func everyAppRouteDocuments429() throws {
        let harness = try ServiceHarness(seed: false)
        let document = harness.send("GET", "/openapi.json").json
        var undocumented: [String] = []
        for route in Self.routes {
            guard case .user = route.access else { continue }
            let operation = document["paths"]?[route.pattern]?[route.method.lowercased()]
            if operation?["responses"]?["429"] == nil { undocumented.append(route.name) }
        }
        #expect(undocumented == [], "app routes without a 429 response")
    }
}
