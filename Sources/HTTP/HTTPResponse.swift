import Core

/// One HTTP response: status, header fields and body bytes.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields in order; `Content-Length` and `Date` are added by the server.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The handler answers this request later (see ``deferred``).
    public private(set) var isDeferred = false

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Not an answer yet: the request waits (its connection suspended, the polling thread free
    /// for other requests) until the server's `flush` answers it, with every request deferred
    /// since the last flush (see ``HTTPServer``).
    public static var deferred: Self {
        var response = HTTPResponse(status: 0)
        response.isDeferred = true
        return response
    }

    /// A JSON response (compact, UTF-8).
    public static func json(_ value: JSON, status: Int = 200, headers: [(name: String, value: String)] = []) -> Self {
        var body: [UInt8] = []
        body.reserveCapacity(256)
        value.appendCompactText(to: &body)
        body.append(UInt8(ascii: "\n"))
        return HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The error shape of the whole API: `{"code", "message", "errors"}`.
    ///
    /// `code` is stable snake_case for programs, `message` is for people, and `errors` lists the
    /// individual problems (each at least a `message`, often a `field` or `at`).
    public static func error(
        _ status: Int, code: String, message: String, errors: [JSON] = [],
        headers: [(name: String, value: String)] = []
    ) -> Self {
        json(
            .object(["code": .string(code), "message": .string(message), "errors": .array(errors)]), status: status,
            headers: headers)
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> Self
    {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// The value of header field `name` (any case).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}

/// Reason phrases of the statuses the API uses.
public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
