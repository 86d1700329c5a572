import FeatureKit
import HTTP

/// The HTTP logic of the service as a pure function from request to response: a table of
/// routes (method + path pattern), each with a handler. No sockets: tests call
/// ``handle(_:)`` directly, and the libmicrohttpd adapter calls the same function.
public struct Router<Context>: Sendable {
    /// A request matched to a route, with the values of its `{parameters}`.
    public struct Match {
        public var route: Route
        public var parameters: [String: String]
    }

    /// One route: `GET /v1/dogs/{dog_id}/today`.
    public struct Route: Sendable {
        public var method: String
        /// Segments; `{name}` matches one non-empty segment.
        public var pattern: String
        /// Index in the router's table (metrics use it).
        public var index: Int
        /// Who may call it.
        public var access: RouteAccess
        /// On an admin route, the least role that may call it.
        public var role: AdminRole = .viewer
        let segments: [Substring]
        let handler: @Sendable (Context, HTTPRequest, [String: String]) -> HTTPResponse

        /// `GET /v1/dogs/{dog_id}/today`, as metrics and logs name it.
        public var name: String { "\(method) \(pattern)" }
    }

    public private(set) var routes: [Route] = []

    public init() {}

    /// Adds a route.
    public mutating func add(
        _ method: String, _ pattern: String, access: RouteAccess = .open, role: AdminRole = .viewer,
        _ handler: @escaping @Sendable (Context, HTTPRequest, [String: String]) -> HTTPResponse
    ) {
        precondition(!routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(pattern)")
        routes.append(
            Route(
                method: method, pattern: pattern, index: routes.count, access: access, role: role,
                segments: Self.segments(pattern),
                handler: handler))
    }

    /// The route for `method` and `path`; or why there is none (`404`, or `405` with the methods
    /// the path allows).
    public func match(method: String, path: String) -> Result<Match, RouteMiss> {
        let segments = Self.segments(path)
        var allowed: [String] = []
        for route in routes where route.segments.count == segments.count && Self.fits(route.segments, segments) {
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .success(Match(route: route, parameters: Self.parameters(route.segments, segments)))
            }
            allowed.append(route.method)
        }
        return .failure(allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed))
    }

    /// Answers `request` in `context`.
    public func handle(_ request: HTTPRequest, in context: Context) -> (route: Route?, response: HTTPResponse) {
        switch match(method: request.method, path: request.path) {
        case .success(let match):
            return (match.route, match.route.handler(context, request, match.parameters))
        case .failure(.notFound):
            return (nil, .error(404, code: "not_found", message: "no route for \(request.path)"))
        case .failure(.methodNotAllowed(let allowed)):
            let list = allowed.joined(separator: ", ")
            return (
                nil,
                .error(
                    405, code: "method_not_allowed", message: "\(request.method) is not allowed here; use \(list)",
                    headers: [("Allow", list)])
            )
        }
    }

    /// The non-empty segments between slashes (a scan of the UTF-8 bytes: this runs per request).
    static func segments(_ path: some StringProtocol) -> [Substring] {
        let text = Substring(path)
        var segments: [Substring] = []
        segments.reserveCapacity(8)
        let bytes = text.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if start != index { segments.append(text[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex { segments.append(text[start..<bytes.endIndex]) }
        return segments
    }

    /// Whether `path` has the literal segments of `pattern` (equal counts, checked by the caller).
    private static func fits(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        for index in pattern.indices {
            let expected = pattern[index]
            if expected.first == "{" { continue }
            if expected != path[index] { return false }
        }
        return true
    }

    private static func parameters(_ pattern: [Substring], _ path: [Substring]) -> [String: String] {
        var parameters: [String: String] = [:]
        for index in pattern.indices where pattern[index].first == "{" {
            parameters[String(pattern[index].dropFirst().dropLast())] = String(path[index])
        }
        return parameters
    }
}

/// Why no route matched.
public enum RouteMiss: Error, Equatable {
    case notFound
    case methodNotAllowed(allowed: [String])
}
