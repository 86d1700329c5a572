import Core

/// Every name an OpenAPI document gives the app or the console — a request body's or an
/// answer's property, a query or path parameter — with the kinds it is used as and where, and
/// the rule each name must keep (``OpenAPINamingTests``).
struct OpenAPINameWalk {
    static let entities: Set<String> = [
        "dog", "block", "branch", "category", "challenge", "tracker", "flow", "user", "badge", "course", "step",
        "team", "record", "reminder",
    ]

    let schemas: JSONObject
    let parameters: JSONObject
    /// Name → kind → where it was seen.
    var uses: [String: [String: Set<String>]] = [:]
    var visited: Set<String> = []

    /// The walk over every operation the app calls (those without an operation-level
    /// `security`, so under the user's bearer token): their parameters, bodies and answers and
    /// every schema they reach; with `includingAdmin`, the admin operations' too.
    init(_ document: JSON, includingAdmin: Bool = false) {
        schemas = document["components"]?["schemas"]?.objectValue ?? [:]
        parameters = document["components"]?["parameters"]?.objectValue ?? [:]
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            let shared = item["parameters"]?.arrayValue ?? []
            for (method, operation) in item.objectValue ?? [:] where operation.objectValue != nil {
                guard includingAdmin || operation["security"] == nil else { continue }
                let place = "\(method.uppercased()) \(path)"
                for parameter in shared + (operation["parameters"]?.arrayValue ?? []) {
                    use(parameter, at: place)
                }
                if let body = operation["requestBody"]?["content"]?["application/json"]?["schema"] {
                    walk(body, at: place + " body")
                }
                for (status, response) in operation["responses"]?.objectValue ?? [:] {
                    if let schema = response["content"]?["application/json"]?["schema"] {
                        walk(schema, at: "\(place) \(status)")
                    }
                }
            }
        }
    }

    /// Every name that breaks the rules, with why and where (empty when the document keeps them).
    var problems: [String] { uses.keys.sorted().compactMap(problem) }

    func resolve(_ schema: JSON) -> JSON {
        var schema = schema
        var hops = 0
        while let reference = schema["$ref"]?.stringValue, hops < 32 {
            schema = schemas[String(reference.split(separator: "/").last ?? "")] ?? .null
            hops += 1
        }
        return schema
    }

    /// `string`, `number`, `boolean`, `object`, `array<…>`, alternatives joined by `|`; nil for
    /// a schema that says nothing (it matches any kind).
    func kind(_ schema: JSON) -> String? {
        let schema = resolve(schema)
        for key in ["oneOf", "anyOf"] {
            if let options = schema[key]?.arrayValue {
                let kinds = Set(options.compactMap(kind)).subtracting(["null"]).sorted()
                return kinds.isEmpty ? nil : kinds.joined(separator: "|")
            }
        }
        if schema["allOf"] != nil || schema["properties"] != nil { return "object" }
        switch schema["type"]?.stringValue {
        case "integer", "number": return "number"
        case "array": return "array<\(schema["items"].flatMap(kind) ?? "any")>"
        case let type?: return type
        case nil: return nil
        }
    }

    /// A query or path parameter (headers are not the app's names): its schema's kind, text
    /// when it has none.
    mutating func use(_ parameter: JSON, at place: String) {
        var parameter = parameter
        if let reference = parameter["$ref"]?.stringValue {
            parameter = parameters[String(reference.split(separator: "/").last ?? "")] ?? .null
        }
        guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue,
            location == "query" || location == "path"
        else { return }
        let kind = parameter["schema"].flatMap(kind) ?? "string"
        uses[name, default: [:]][kind, default: []].insert(
            "\(place) " + (location == "path" ? "{\(name)}" : "?\(name)"))
    }

    mutating func walk(_ schema: JSON, at place: String) {
        if let reference = schema["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            guard visited.insert(name).inserted else { return }
            walk(schemas[name] ?? .null, at: name)
            return
        }
        for (name, property) in schema["properties"]?.objectValue ?? [:] {
            if let kind = kind(property) { uses[name, default: [:]][kind, default: []].insert(place) }
            // A `links` object's properties are URLs named after the screen they open.
            if name != "links" { walk(property, at: "\(place).\(name)") }
        }
        for key in ["items", "additionalProperties"] {
            if let inner = schema[key], inner.objectValue != nil { walk(inner, at: "\(place)[]") }
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            for inner in schema[key]?.arrayValue ?? [] { walk(inner, at: place) }
        }
    }

    /// Why `name` breaks the naming rules, or nil.
    func problem(_ name: String) -> String? {
        let kinds = Set(uses[name]?.keys.map { $0 } ?? [])
        var problems: [String] = []
        if name != "id" && kinds.count > 1 { problems.append("two kinds") }
        if Self.entities.contains(name) && kinds.contains(where: { $0 != "object" }) {
            problems.append("an entity's name for a non-object")
        }
        if name.hasSuffix("_id") && kinds.contains(where: { $0 != "string" }) {
            problems.append("an id not a string")
        }
        if name.hasSuffix("_ids") && kinds.contains(where: { $0 != "array<string>" }) {
            problems.append("ids not a list of strings")
        }
        guard !problems.isEmpty else { return nil }
        let seen = (uses[name] ?? [:]).sorted { $0.key < $1.key }.map {
            "\($0.key) in \($0.value.sorted().prefix(3))"
        }
        return "\(name): \(problems.joined(separator: ", ")): \(seen.joined(separator: "; "))"
    }
}
