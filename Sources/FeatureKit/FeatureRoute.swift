import Core
import HTTP

/// One HTTP route a feature serves: `GET /v1/users/{user}/habits/day`.
public struct FeatureRoute: Sendable {
    /// Answers a request matched to the route; a thrown ``APIError`` is the response.
    public typealias Handler =
        @Sendable (any ServiceContext, HTTPRequest, RouteParameters) throws(APIError) -> HTTPResponse

    public var method: String
    /// Path segments; `{name}` matches one non-empty segment.
    public var pattern: String
    /// Who may call it (checked by the service before the handler runs).
    public var access: RouteAccess
    public var handler: Handler

    /// Only for a caller with an admin credential.
    public var admin: Bool { access == .service(.admin) }

    public init(_ method: String, _ pattern: String, access: RouteAccess, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.handler = handler
    }

    /// An admin route (`admin: true`), or a route for any signed-in app user.
    public init(_ method: String, _ pattern: String, admin: Bool = false, _ handler: @escaping Handler) {
        self.init(method, pattern, access: admin ? .service(.admin) : .anyUser, handler)
    }
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
