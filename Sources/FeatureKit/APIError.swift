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

/// Typed access to the fields of a JSON object; every problem is kept, and ``check()``
/// refuses them all at once with `422`.
public struct Fields {
    public let object: JSONObject
    /// The path of `object` in the body, for messages (`""` for the body itself).
    public let path: String
    private(set) var problems: [JSON] = []
    private var known: Set<String> = []

    public init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    private func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    public mutating func problem(_ field: String, _ message: String) {
        problems.append(["field": .string(name(field)), "message": .string(message)])
    }

    public mutating func string(_ field: String, required: Bool = false, maxLength: Int = 200) -> String? {
        text(field, required: required) { text in
            text.isEmpty
                ? "must not be empty" : text.count > maxLength ? "must be at most \(maxLength) characters" : nil
        }
    }

    /// The string `field` holds when `refusal` finds nothing wrong with it; else nil, with the
    /// problem (or with "is required" when `required` and absent, or the type it has instead).
    private mutating func text(_ field: String, required: Bool, _ refusal: (String) -> String?) -> String? {
        known.insert(field)
        switch object[field] {
        case nil, .null?:
            if required { problem(field, "is required (a string)") }
            return nil
        case .string(let text)?:
            if let message = refusal(text) {
                problem(field, message)
                return nil
            }
            return text
        case let other?:
            problem(field, "must be a string, not \(other.typeName)")
            return nil
        }
    }

    /// A string that must be there; "" (with the problem kept) when it is not, so that
    /// ``check(allowingUnknown:)`` refuses the request before the value is used.
    public mutating func requiredString(_ field: String, maxLength: Int = 200) -> String {
        string(field, required: true, maxLength: maxLength) ?? ""
    }

    /// An id by the one rule (``Core/Identifier``: 1 to 128 bytes, no control characters).
    public mutating func identifier(_ field: String, required: Bool = false) -> String? {
        text(field, required: required) { Identifier.problem($0)?.requirement }
    }

    /// An id that must be there; "" (with the problem kept) when it is not, as
    /// ``requiredString(_:maxLength:)``.
    public mutating func requiredIdentifier(_ field: String) -> String {
        identifier(field, required: true) ?? ""
    }

    public mutating func object(_ field: String, required: Bool = false) -> JSONObject? {
        known.insert(field)
        switch object[field] {
        case nil, .null?:
            if required { problem(field, "is required (an object)") }
            return nil
        case .object(let value)?:
            return value
        case let other?:
            problem(field, "must be an object, not \(other.typeName)")
            return nil
        }
    }

    public mutating func array(_ field: String, required: Bool = false) -> [JSON]? {
        known.insert(field)
        switch object[field] {
        case nil, .null?:
            if required { problem(field, "is required (an array)") }
            return nil
        case .array(let value)?:
            return value
        case let other?:
            problem(field, "must be an array, not \(other.typeName)")
            return nil
        }
    }

    public mutating func bool(_ field: String) -> Bool? {
        known.insert(field)
        switch object[field] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?:
            problem(field, "must be true or false, not \(other.typeName)")
            return nil
        }
    }

    public mutating func integer(_ field: String, in range: ClosedRange<Int>) -> Int? {
        known.insert(field)
        switch object[field] {
        case nil, .null?: return nil
        case .number(let value)?:
            guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                problem(field, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return Int(value)
        case let other?:
            problem(field, "must be a number, not \(other.typeName)")
            return nil
        }
    }

    /// Any JSON value (present or not).
    public mutating func any(_ field: String) -> JSON? {
        known.insert(field)
        return object[field]
    }

    /// Refuses fields nobody asked for (typos must not pass silently), then every problem.
    public mutating func check(allowingUnknown: Bool = false) throws(APIError) {
        if !allowingUnknown {
            for key in object.keys where !known.contains(key) {
                let allowed = known.sorted().map { "`\($0)`" }.joined(separator: ", ")
                problem(key, "is not a known field (known: \(allowed))")
            }
        }
        guard !problems.isEmpty else { return }
        let first = problems[0]
        let summary = "\(first["field"]?.stringValue ?? "") \(first["message"]?.stringValue ?? "")"
        throw APIError(
            422, "invalid_request",
            problems.count == 1 ? summary : "\(summary) (and \(problems.count - 1) more)", errors: problems)
    }
}
