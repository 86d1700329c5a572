import Core
import Engine
import JQ

/// Reads an event's payload strictly: each problem is a refusal naming `payload.<field>`, and
/// fields the event type does not have are refused.
struct PayloadReader {
    let payload: JSONObject
    let type: String
    private var read: Set<String> = []

    init(_ event: Event) {
        payload = event.payload
        type = event.type
    }

    mutating func string(_ field: String) throws -> String {
        guard let value = try optionalString(field) else {
            throw Rejection(.invalid, "`payload.\(field)` is required for \(type)")
        }
        return value
    }

    mutating func optionalString(_ field: String) throws -> String? {
        read.insert(field)
        switch payload[field] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw Rejection(.invalid, "`payload.\(field)` must be a string, got \(other.typeName)")
        }
    }

    /// Whether the field is present at all (null included): "set it to nothing" differs from "leave it".
    func has(_ field: String) -> Bool { payload[field] != nil }

    mutating func bool(_ field: String) throws -> Bool? {
        read.insert(field)
        switch payload[field] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw Rejection(.invalid, "`payload.\(field)` must be true or false, got \(other.typeName)")
        }
    }

    mutating func strings(_ field: String) throws -> [String]? {
        read.insert(field)
        switch payload[field] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard case .string(let text) = item else {
                    throw Rejection(
                        .invalid, "`payload.\(field)` must be a list of strings, got \(item.typeName) in it")
                }
                return text
            }
        case let other?: throw Rejection(.invalid, "`payload.\(field)` must be a list, got \(other.typeName)")
        }
    }

    /// An id by the one rule (``Core/Identifier``).
    mutating func identifier(_ field: String) throws -> String {
        let value = try string(field)
        if let problem = Identifier.problem(value) {
            throw Rejection(.invalid, problem.message(field: "payload.\(field)"))
        }
        return value
    }

    /// Refuses fields that were not read.
    func finish() throws {
        let unknown = payload.keys.filter { !read.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw Rejection(
                .invalid,
                "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "`payload.\($0)`" }.joined(separator: ", ")) for \(type); fields: \(read.sorted().joined(separator: ", "))"
            )
        }
    }
}
