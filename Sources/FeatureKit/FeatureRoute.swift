import Core
import HTTP

/// One HTTP route a feature serves: `GET /v1/users/{user_id}/habits/day`.
public struct FeatureRoute: Sendable {
    /// Answers a request matched to the route; a thrown ``APIError`` is the response.
    public typealias Handler =
        @Sendable (any ServiceContext, HTTPRequest, RouteParameters) throws(APIError) -> HTTPResponse

    public var method: String
    /// Path segments; `{name}` matches one non-empty segment.
    public var pattern: String
    /// Who may call it (checked by the service before the handler runs).
    public var access: RouteAccess
    /// On an admin route, the least role that may call it.
    public var role: AdminRole
    public var handler: Handler

    /// Only for a caller with an admin credential.
    public var admin: Bool { access == .service(.admin) }

    public init(
        _ method: String, _ pattern: String, access: RouteAccess, role: AdminRole? = nil,
        _ handler: @escaping Handler
    ) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.role = role ?? Self.defaultRole(method)
        self.handler = handler
    }

    /// An admin route (`admin: true`), or a route for any signed-in app user. An admin route
    /// needs `role`: by default `viewer` to read (GET) and `admin` to change anything.
    public init(
        _ method: String, _ pattern: String, admin: Bool = false, role: AdminRole? = nil,
        _ handler: @escaping Handler
    ) {
        self.init(method, pattern, access: admin ? .service(.admin) : .anyUser, role: role, handler)
    }

    /// Reading needs `viewer`; a route that changes something needs `admin` unless it says less.
    public static func defaultRole(_ method: String) -> AdminRole { method == "GET" ? .viewer : .admin }
}

/// The values of a matched route's `{parameters}`.
public struct RouteParameters: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    /// The value of `{name}`, an id by the one rule (``Core/Identifier``): a value that is not
    /// one names nothing, `404 not_found`. A route that names no such parameter is a
    /// programming error, answered `500 route_parameter` rather than a crash.
    public func require(_ name: String) throws(APIError) -> String {
        guard let value = values[name] else {
            throw APIError(500, "route_parameter", "the route has no {\(name)} parameter")
        }
        if let problem = Identifier.problem(value) {
            throw APIError.notFound("not_found", "{\(name)} is not an id: it \(problem.requirement)")
        }
        return value
    }
}
