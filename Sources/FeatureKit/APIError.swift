import Core
import HTTP
import JQ

/// A refusal of a request, in the API's error shape `{"code", "message", "errors"}`.
public struct APIError: Error, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var errors: [JSON] = []
    public var headers: [(name: String, value: String)] = []

    public init(
        _ status: Int, _ code: String, _ message: String, errors: [JSON] = [],
        headers: [(name: String, value: String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = headers
    }

    public var response: HTTPResponse {
        .error(status, code: code, message: message, errors: errors, headers: headers)
    }

    public static func notFound(_ code: String, _ message: String) -> APIError { APIError(404, code, message) }

    /// `404 code` for the path parameter `parameter` naming nothing: `errors` names it.
    public static func notFound(_ code: String, _ message: String, parameter: String) -> APIError {
        APIError(404, code, message, errors: [parameterEntry(parameter, .unknown, message)])
    }

    /// One problem caused by the request's path parameter (or, with `in: "query"`, query
    /// parameter) `name` rather than its body: `{field, in, code, message}`.
    public static func parameterEntry(
        _ name: String, _ code: FieldError.Code, _ problem: String, in place: String = "path"
    ) -> JSON {
        ["field": .string(name), "in": .string(place), "code": .string(code.rawValue), "message": .string(problem)]
    }

    /// `body`'s JSON as the answer; a store that fails answers `503 store_unavailable`.
    public static func answering(_ body: () throws -> JSON) throws(APIError) -> HTTPResponse {
        do {
            return .json(try body())
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `?name=` as an RFC 3339 date-time with an offset; nil when absent; `422` naming it otherwise.
    public static func timeQuery(_ request: HTTPRequest, _ name: String) throws(APIError) -> Double? {
        guard let text = request.query(name) else { return nil }
        guard let parsed = Timestamp.parse(text) else {
            throw APIError(
                422, "invalid_request", "\(name) must be an RFC 3339 date-time with an offset (got \(text))",
                errors: [["field": .string(name), "message": "not a date-time with an offset"]])
        }
        return parsed
    }
}

/// Reads a request's JSON body and its fields, collecting every problem before refusing.
public struct RequestBody {
    /// Deepest nesting accepted in a body.
    public static let maximumDepth = 64

    /// The body as a JSON object.
    /// - Throws: `415` for a multipart body, `400` for an empty body, text that is not JSON
    ///   (with line and column) or JSON that is not an object.
    public static func object(_ request: HTTPRequest, optional: Bool = false) throws(APIError) -> JSONObject {
        // Any media type is read as JSON (curl sends form encoding by default); multipart is
        // refused, as it can never be JSON.
        if let type = request.header("Content-Type")?.lowercased(), type.hasPrefix("multipart/") {
            throw APIError(415, "unsupported_media_type", "send the body as application/json (got \(type))")
        }
        if request.body.isEmpty {
            if optional { return [:] }
            throw APIError(400, "missing_body", "this endpoint needs a JSON object body")
        }
        let value: JSON
        do {
            value = try JSONParser(maximumDepth: maximumDepth).parse(request.body)
        } catch {
            throw APIError(
                400, "invalid_json", "the body is not valid JSON: \(error.message)",
                errors: [
                    [
                        "message": .string(error.message), "line": .number(Double(error.line)),
                        "column": .number(Double(error.column)),
                    ]
                ])
        }
        guard case .object(let object) = value else {
            throw APIError(400, "invalid_body", "the body must be a JSON object, not \(value.typeName)")
        }
        return object
    }
}

extension RequestBody {
    /// Longest text a body's string field takes unless its route says otherwise.
    public static let maximumTextLength = 200

    /// A reader of the body's fields (``object(_:optional:)``), strings at most
    /// ``maximumTextLength`` characters unless a read says otherwise. Read with `try?`, then
    /// ``Core/FieldReader/check(allowingUnknown:)`` refuses every problem at once.
    public static func fields(_ request: HTTPRequest, optional: Bool = false) throws(APIError) -> FieldReader {
        FieldReader(try object(request, optional: optional), maximumLength: maximumTextLength)
    }
}

extension APIError {
    /// `422 invalid_request` listing every problem (`errors`: each with its `field` as people
    /// read it, its JSON pointer `path`, its `code` and `message`); the message is the first
    /// problem, and how many more there are.
    public init(fieldErrors: [FieldError]) {
        let errors: [JSON] = fieldErrors.map(Self.entry)
        let first = fieldErrors.first.map { "\($0.field) \($0.problem)" } ?? "the request is invalid"
        self.init(
            422, "invalid_request", fieldErrors.count > 1 ? "\(first) (and \(fieldErrors.count - 1) more)" : first,
            errors: errors)
    }

    /// One problem as the API lists it.
    public static func entry(_ error: FieldError) -> JSON {
        [
            "field": .string(error.field), "path": .string(error.path), "code": .string(error.code.rawValue),
            "message": .string(error.problem),
        ]
    }
}

extension FieldReader {
    /// Refuses the request with every problem at once (`422`): those found by the reads, and
    /// each field nobody read unless `allowingUnknown` (typos must not pass silently).
    public func check(allowingUnknown: Bool = false) throws(APIError) {
        let problems = problems(allowingUnknown: allowingUnknown)
        guard problems.isEmpty else { throw APIError(fieldErrors: problems) }
    }
}
