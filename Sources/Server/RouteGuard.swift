import Auth
import Core
import FeatureKit
import HTTP
import Store

/// The one check of who may call a route, made before its handler runs, from what the route
/// declares (``FeatureKit/RouteAccess``): app routes need a user's bearer token (a JWT whose
/// `sub` is the user) and act for that user only; service routes need a credential with their
/// scope.
///
/// Without a token verifier (no `--jwt-…` flag: the loopback development setup, or
/// `--insecure-no-auth`) app and service routes are open as before; admin routes always need
/// an admin credential.
struct RouteGuard: Sendable {
    let credentials: AdminCredentials?
    let verifier: TokenVerifier?
    let clock: @Sendable () -> Double
    /// Tokens verified before (a client sends the same one with every request).
    let tokens = VerifiedTokenCache()

    /// `token` checked by the verifier, or answered from the cache.
    private func verify(_ token: String, with verifier: TokenVerifier) -> Result<VerifiedToken, TokenRefusal> {
        tokens.verify(token, now: clock(), with: verifier)
    }

    /// The caller (nil: the route is open to anyone here); else the refusal.
    /// On an admin route, the credential needs `role` or a higher one.
    func admit(
        _ request: HTTPRequest, access: RouteAccess, role: AdminRole = .viewer, parameters: [String: String],
        store: any Store
    ) -> Result<Principal?, APIError> {
        Result { () throws(APIError) -> Principal? in
            switch access {
            case .open: return nil
            case .service(let scope): return try service(request, scope: scope, role: role)
            case .user(let bindings): return try user(request, bindings: bindings, parameters: parameters, store: store)
            }
        }
    }

    // MARK: Service credentials

    private func service(_ request: HTTPRequest, scope: ServiceScope, role: AdminRole) throws(APIError)
        -> Principal?
    {
        if scope != .admin, verifier == nil { return nil }
        let admin = scope == .admin
        guard let credentials, credentials.hasScope(scope) else {
            if admin, credentials == nil {
                throw APIError(
                    403, "admin_disabled",
                    "the admin endpoints are off: start the service with JOURNEY_ADMIN_TOKEN or --admin-token-file")
            }
            throw APIError(
                403, admin ? "admin_disabled" : "scope_disabled",
                "no credential has the \(scope.rawValue) scope: add a line `NAME \(scope.rawValue) TOKEN` to the admin token file"
            )
        }
        let challenge = Self.challenge(admin ? "journey-admin" : "journey")
        guard let token = try Self.bearer(request, challenge: challenge, expecting: "\(scope.rawValue) token") else {
            throw APIError(
                401, "unauthorized", "send Authorization: Bearer <\(scope.rawValue) token>", headers: challenge)
        }
        if let credential = credentials.credential(of: token) {
            if admin {
                guard let has = credential.scopes.adminRole else {
                    throw APIError(
                        403, "forbidden",
                        "the credential `\(credential.name)` has no admin role (viewer, editor, publisher or admin)")
                }
                guard has >= role else {
                    throw APIError(
                        403, "role_required",
                        "this needs the \(role.name) role; `\(credential.name)` is a\(has == .admin ? "n" : "") \(has.name)",
                        errors: [["needed": .string(role.name), "role": .string(has.name)]])
                }
            } else {
                guard credential.scopes.contains(scope) else {
                    throw APIError(
                        403, "forbidden",
                        "the credential `\(credential.name)` does not have the \(scope.rawValue) scope")
                }
            }
            return .service(name: credential.name, scopes: credential.scopes)
        }
        if let verifier, case .success = verify(token, with: verifier) {
            throw APIError(
                403, "forbidden",
                "this route needs a service credential with the \(scope.rawValue) scope, not a user's token")
        }
        throw APIError(401, "unauthorized", "the \(scope.rawValue) token is not valid", headers: challenge)
    }

    // MARK: App users

    private func user(
        _ request: HTTPRequest, bindings: [UserBinding], parameters: [String: String], store: any Store
    ) throws(APIError) -> Principal? {
        guard let verifier else { return nil }
        let challenge = Self.challenge("journey")
        guard let token = try Self.bearer(request, challenge: challenge, expecting: "token") else {
            throw APIError(
                401, "unauthorized", "send Authorization: Bearer <token>: a JWT whose sub is the user",
                headers: challenge)
        }
        if let credential = credentials?.credential(of: token) {
            guard let role = credential.scopes.adminRole else {
                throw APIError(
                    403, "forbidden",
                    "`\(credential.name)` is a service credential; app routes need a user's token (or an admin credential)"
                )
            }
            // Any admin role reads a user's screens (the console explains them); only an admin
            // acts for a user.
            guard request.method == "GET" || role == .admin else {
                throw APIError(
                    403, "role_required",
                    "acting for a user needs the admin role; `\(credential.name)` is a\(role == .admin ? "n" : "") \(role.name)",
                    errors: [["needed": .string(AdminRole.admin.name), "role": .string(role.name)]])
            }
            return .service(name: credential.name, scopes: credential.scopes)
        }
        switch verify(token, with: verifier) {
        case .failure(let refusal):
            throw APIError(
                401, "invalid_token", "the token is not accepted: \(refusal.message)",
                errors: [["reason": .string(refusal.code.rawValue)]],
                headers: [
                    (
                        "WWW-Authenticate",
                        "Bearer realm=\"journey\", error=\"invalid_token\", error_description=\"\(refusal.code.rawValue)\""
                    )
                ])
        case .success(let verified):
            for binding in bindings {
                try check(binding, user: verified.subject, request: request, parameters: parameters, store: store)
            }
            return .user(verified.subject)
        }
    }

    private func check(
        _ binding: UserBinding, user: String, request: HTTPRequest, parameters: [String: String], store: any Store
    ) throws(APIError) {
        switch binding {
        case .pathUser(let name):
            if let other = parameters[name], other != user { throw Self.otherUser(user, other) }
        case .queryUser(let name):
            if let other = request.query(name), other != user { throw Self.otherUser(user, other) }
        case .pathDog(let name):
            let dogID = try RouteParameters(parameters).require(name)
            let dog: DogProfile?
            do {
                dog = try store.dog(dogID)
            } catch {
                throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
            }
            // Another user's dog is answered as one that does not exist: ids cannot be probed.
            guard let dog, dog.userID == user else { throw APIError.notFound("unknown_dog", "no dog \(dogID)") }
        case .bodyUser(let member):
            let body = try RequestBody.object(request, optional: true)
            if case .string(let other)? = body[member], other != user { throw Self.otherUser(user, other) }
        case .bodyEvents(let member):
            let body = try RequestBody.object(request, optional: true)
            var errors: [JSON] = []
            for (index, event) in (body[member]?.arrayValue ?? []).enumerated() {
                if case .string(let other)? = event["user_id"], other != user {
                    errors.append([
                        "field": .string("\(member)[\(index)].user_id"),
                        "message": .string("is \(other), not the token's user \(user)"),
                    ])
                }
            }
            guard errors.isEmpty else {
                throw APIError(
                    403, "forbidden",
                    "the token acts for user \(user); \(errors.count) event\(errors.count == 1 ? " is" : "s are") another user's",
                    errors: errors)
            }
        }
    }

    private static func otherUser(_ user: String, _ other: String) -> APIError {
        APIError(403, "forbidden", "the token acts for user \(user); it cannot act for user \(other)")
    }

    // MARK: The header

    static func challenge(_ realm: String) -> [(name: String, value: String)] {
        [(name: "WWW-Authenticate", value: "Bearer realm=\"\(realm)\"")]
    }

    /// The bearer token of `Authorization` (nil without the header); a header of another
    /// scheme, or an empty token, is refused. Read as bytes: this runs for every request.
    static func bearer(_ request: HTTPRequest, challenge: [(name: String, value: String)], expecting: String)
        throws(APIError) -> String?
    {
        guard let header = request.header("Authorization") else { return nil }
        let refusal = APIError(401, "unauthorized", "send Authorization: Bearer <\(expecting)>", headers: challenge)
        let bytes = header.utf8
        let space = UInt8(ascii: " ")
        var start = bytes.startIndex
        while start != bytes.endIndex, bytes[start] == space { start = bytes.index(after: start) }
        guard let gap = bytes[start...].firstIndex(of: space), header[start..<gap].lowercased() == "bearer" else {
            throw refusal
        }
        start = gap
        var end = bytes.endIndex
        while start != end, bytes[start] == space { start = bytes.index(after: start) }
        while end != start, bytes[bytes.index(before: end)] == space { end = bytes.index(before: end) }
        guard start != end else { throw refusal }
        return String(header[start..<end])
    }
}
