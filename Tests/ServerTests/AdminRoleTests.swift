import Auth
import Core
import FeatureKit
import Features
import Foundation
import HTTP
import TestSupport
import Testing

@testable import Server

/// The admin API's roles: every admin route refuses a credential below its role (403
/// `role_required`, naming the role needed) and lets one at or above it through, whatever the
/// console shows.
@Suite(.serialized) struct AdminRoleTests {
    static let tokens: [(AdminRole, String)] = [
        (.viewer, "viewer-token-0123456789"), (.editor, "editor-token-0123456789"),
        (.publisher, "publisher-token-0123456789"), (.admin, "admin-token-0123456789"),
    ]
    static let credentials = tokens.map { "\($0.0.name)-person \($0.0.name) \($0.1)" }.joined(separator: "\n")
    static let shared = SharedRoleService()
    static let routes = JourneyService.makeRouter(features: Features.all).routes.filter {
        $0.access == .service(.admin)
    }

    /// The roles the routes that matter declare (the rest: viewer to read, admin to change).
    static let declared: [(String, AdminRole)] = [
        ("GET /v1/rules", .viewer), ("GET /v1/rules/revisions", .viewer), ("GET /v1/audit", .viewer),
        ("GET /v1/rules/files", .viewer), ("GET /v1/rules/schedules", .viewer), ("GET /v1/dogs", .viewer),
        ("GET /v1/experiments/{experiment}/report", .viewer),
        ("POST /v1/rules/check", .editor), ("POST /v1/rules/revisions", .editor),
        ("POST /v1/rules/revisions/{revision}/preview", .editor), ("PUT /v1/rules/params", .editor),
        ("PUT /v1/experiments/{experiment}", .editor), ("POST /v1/experiments/{experiment}/conclude", .editor),
        ("PUT /v1/onboarding/flows/{flow_id}", .editor), ("POST /v1/onboarding/flows/{flow_id}/check", .editor),
        ("PUT /v1/texts", .editor), ("POST /v1/texts/check", .editor), ("POST /v1/texts/render", .viewer),
        ("POST /v1/eval", .editor), ("POST /v1/rules/{rule}/evaluate", .editor),
        ("POST /v1/rules/revisions/{revision}/activate", .publisher),
        ("POST /v1/rules/revisions/{revision}/approve", .publisher),
        ("POST /v1/rules/revisions/{revision}/schedule", .publisher),
        ("DELETE /v1/rules/schedules/{schedule_id}", .publisher),
        ("POST /v1/rules/reload", .admin), ("DELETE /v1/rules/{rule}/quarantine", .admin),
    ]

    @Test(arguments: declared)
    func routeDeclaresItsRole(route name: String, role: AdminRole) throws {
        let route = try #require(Self.routes.first { $0.name == name }, "no admin route \(name)")
        #expect(route.role == role)
    }

    /// Every admin route × every role: below the route's role 403 naming it, else not refused.
    @Test(arguments: AdminRole.allCases)
    func everyAdminRouteAnswersEachRole(role: AdminRole) throws {
        let token = try #require(Self.tokens.first { $0.0 == role }?.1)
        try Self.shared.use { harness in
            for route in Self.routes {
                let path = route.pattern.replacingOccurrences(
                    of: #"\{[a-z_]+\}"#, with: "0000", options: .regularExpression)
                let target = route.pattern == "/v1/dogs" ? path + "?find=q" : path
                let response = harness.send(
                    route.method, target,
                    json: route.method == "GET"
                        ? nil : route.pattern == "/v1/rules/revisions" ? ["activate": false] : [:],
                    headers: ["Authorization": "Bearer \(token)"])
                if role < route.role {
                    #expect(response.status == 403, "\(route.name) as \(role.name): \(response.status)")
                    #expect(response.json["code"] == "role_required", "\(route.name): \(response.text.prefix(200))")
                    #expect(
                        response.json["message"]?.stringValue?.contains("needs the \(route.role.name) role") == true,
                        "\(route.name): \(response.text.prefix(200))")
                } else {
                    #expect(
                        response.status != 403 && response.status != 401,
                        "\(route.name) as \(role.name): \(response.status) \(response.text.prefix(200))")
                }
            }
        }
    }

    /// Keeping a draft is an editor's; publishing it (activating) is a publisher's.
    @Test func anEditorKeepsButDoesNotPublish() throws {
        try Self.shared.use { harness in
            let editor = ["Authorization": "Bearer \(Self.tokens[1].1)"]
            let body: JSON = ["message": "m", "base": "active", "files": ["Rules/notes.md": "a note"]]
            let publish = harness.send("POST", "/v1/rules/revisions", json: body, headers: editor)
            #expect(publish.status == 403 && publish.json["code"] == "role_required", "\(publish.text.prefix(200))")
            var keep = body
            if case .object(var object) = keep {
                object["activate"] = false
                keep = .object(object)
            }
            let kept = harness.send("POST", "/v1/rules/revisions", json: keep, headers: editor)
            #expect(kept.status == 201, "\(kept.text.prefix(300))")
            let rules = harness.send("GET", "/v1/rules", headers: editor)
            #expect(rules.json["role"] == "editor" && rules.json["signed_in_as"] == "editor-person")
        }
    }

    /// The credentials file: a role word is a scope; an unknown one is named.
    @Test func credentialsNameRoles() throws {
        let credentials = try AdminCredentials(Self.credentials)
        #expect(credentials.credentials.map { $0.scopes.adminRole } == AdminRole.allCases)
        #expect(throws: AdminCredentialsError.self) { try AdminCredentials("ann approver token-0123456789abcdef") }
    }
}

/// One service with a credential per role, shared by the serialized tests.
final class SharedRoleService: @unchecked Sendable {
    private let lock = NSLock()
    private var harness: ServiceHarness?

    func use<T>(_ body: (ServiceHarness) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if harness == nil { harness = try ServiceHarness(token: AdminRoleTests.credentials, seed: false) }
        return try body(harness!)
    }
}

/// App routes with an admin credential (tokens checked): every role reads a user's screens, only
/// an admin acts for a user.
@Suite struct AdminRoleOnAppRouteTests {
    static let cases: [(AdminRole, String, Int?)] = [
        (.viewer, "GET", nil), (.viewer, "POST", 403), (.editor, "POST", 403), (.publisher, "POST", 403),
        (.admin, "POST", nil), (.publisher, "GET", nil),
    ]

    @Test(arguments: cases)
    func roleOnAnAppRoute(role: AdminRole, method: String, refused: Int?) throws {
        let credentials = try AdminCredentials(AdminRoleTests.credentials)
        let guardian = RouteGuard(
            credentials: credentials, verifier: TokenVerifier(keys: .secret(Array(repeating: 7, count: 32))),
            clock: { 0 })
        let token = try #require(AdminRoleTests.tokens.first { $0.0 == role }?.1)
        var request = HTTPRequest(method: method, path: "/v1/events", query: [], id: "test")
        request.headers["authorization"] = "Bearer \(token)"
        let outcome = guardian.admit(
            request, access: .anyUser, parameters: [:], store: try TestStore("sqlite", schema: .core).store)
        switch outcome {
        case .success: #expect(refused == nil, "\(role.name) \(method) was let through")
        case .failure(let error): #expect(error.status == refused, "\(role.name) \(method): \(error.message)")
        }
    }
}
