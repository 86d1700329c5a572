import Core
import Testing

/// The app's contract says one thing one way: the served `/openapi.json` is walked through every
/// operation the app calls (those without an operation-level `security`, so under the user's
/// bearer token) and every schema they reach, and a property name is refused when it
///
/// - has two kinds (a string here, an object there: `finish_first` as ids and as objects, `dog`
///   as an id and as `{id, name}`), integer and number being one kind and an untyped schema
///   matching any; `id` is exempt, being each object's own identity;
/// - is an entity's name (`dog`, `block`, `category`, …) but not an object: an entity's id is
///   `<entity>_id`, its name `<entity>_name`;
/// - ends in `_id` but is not a string, or in `_ids` but is not a list of strings.
///
/// Properties of a `links` object are URLs named after the screen they open, so not walked.
/// `knownConflicts` lists the names still broken, each with its meanings: it must match the
/// document exactly, so a fixed name leaves the list and no new one joins it unnoticed.
@Suite struct OpenAPINamingTests {
    static let shared = SharedService()

    static let entities: Set<String> = [
        "dog", "block", "branch", "category", "challenge", "tracker", "flow", "user", "badge", "course", "step",
        "team", "record", "reminder",
    ]

    /// The names still used for two things (or ids under an entity's name), to rename next.
    static let knownConflicts: [String: String] = [:]

    struct Walk {
        let schemas: JSONObject
        /// Property name → kind → where it was seen.
        var uses: [String: [String: Set<String>]] = [:]
        var visited: Set<String> = []

        func resolve(_ schema: JSON) -> JSON {
            var schema = schema
            var hops = 0
            while let reference = schema["$ref"]?.stringValue, hops < 32 {
                schema = schemas[String(reference.split(separator: "/").last ?? "")] ?? .null
                hops += 1
            }
            return schema
        }

        /// `string`, `number`, `boolean`, `object`, `array<…>`, alternatives joined by `|`;
        /// nil for a schema that says nothing (it matches any kind).
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

        mutating func walk(_ schema: JSON, at place: String) {
            if let reference = schema["$ref"]?.stringValue {
                let name = String(reference.split(separator: "/").last ?? "")
                guard visited.insert(name).inserted else { return }
                walk(schemas[name] ?? .null, at: name)
                return
            }
            for (name, property) in schema["properties"]?.objectValue ?? [:] {
                if let kind = kind(property) { uses[name, default: [:]][kind, default: []].insert(place) }
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
            if OpenAPINamingTests.entities.contains(name) && kinds.contains(where: { $0 != "object" }) {
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

    /// The walk over every schema the app's operations reach (their bodies and answers); with
    /// `includingAdmin`, the admin operations' too (those with their own `security`).
    static func appWalk(_ document: JSON, includingAdmin: Bool = false) -> Walk {
        var walk = Walk(schemas: document["components"]?["schemas"]?.objectValue ?? [:])
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for (method, operation) in item.objectValue ?? [:] where operation.objectValue != nil {
                guard includingAdmin || operation["security"] == nil else { continue }
                let place = "\(method.uppercased()) \(path)"
                if let body = operation["requestBody"]?["content"]?["application/json"]?["schema"] {
                    walk.walk(body, at: place + " body")
                }
                for (status, response) in operation["responses"]?.objectValue ?? [:] {
                    if let schema = response["content"]?["application/json"]?["schema"] {
                        walk.walk(schema, at: "\(place) \(status)")
                    }
                }
            }
        }
        return walk
    }

    static func servedDocument() throws -> JSON {
        try shared.use { harness in
            let response = harness.send("GET", "/openapi.json")
            #expect(response.status == 200)
            return response.json
        }
    }

    @Test func oneNameForOneThingAcrossTheAppsRoutes() throws {
        let walk = Self.appWalk(try Self.servedDocument())
        #expect(walk.uses.count > 100, "the walk reached the app's schemas")
        let broken = walk.uses.keys.sorted().compactMap { walk.problem($0).map { ($0, $0) } }
        let brokenNames = Set(broken.map { String($0.0.prefix { $0 != ":" }) })
        for (problem, _) in broken where Self.knownConflicts[String(problem.prefix { $0 != ":" })] == nil {
            Issue.record("\(problem)")
        }
        let fixed = Set(Self.knownConflicts.keys).subtracting(brokenNames).sorted()
        #expect(fixed == [], "no longer in conflict: take them off knownConflicts")
    }

    /// The admin routes (the console's: flows, funnels, experiments, revisions, texts) under the
    /// same rule, walked together with the app's, so that a name means one thing whoever calls.
    /// The names still used two ways there, to rename next: none since issue 42's last round.
    static let adminKnownConflicts: Set<String> = []

    @Test func oneNameForOneThingAcrossEveryRouteAdminIncluded() throws {
        let walk = Self.appWalk(try Self.servedDocument(), includingAdmin: true)
        #expect(walk.uses.count > Self.appWalk(try Self.servedDocument()).uses.count, "the admin schemas were walked")
        let broken = Set(walk.uses.keys.filter { walk.problem($0) != nil })
        for name in broken.subtracting(Self.adminKnownConflicts).sorted() {
            Issue.record("\(walk.problem(name) ?? name)")
        }
        let fixed = Self.adminKnownConflicts.subtracting(broken).sorted()
        #expect(fixed == [], "no longer in conflict: take them off adminKnownConflicts")
    }

    /// The admin names renamed to the app's (issue 42): the flow editor's and the funnel's
    /// `flow_id`, a tooltip's `placement`, a highlight's `highlight_shape`, an impact example's
    /// `dog_id`, a plural sample's `plural_category`; a reload's `cause` (`trigger` is a step's);
    /// an evaluation's `evaluated_at` and `use_fallback` (`now` marks a node, `fallback` is a
    /// check's); an experiment report's `as_of`, as the challenge list's.
    @Test(arguments: [
        "flow_id", "placement", "highlight_shape", "dog_id", "plural_category", "highlight", "position", "trigger",
        "cause", "evaluated_at", "use_fallback", "now", "fallback", "as_of",
    ])
    func oneKindAdminIncluded(name: String) throws {
        let walk = Self.appWalk(try Self.servedDocument(), includingAdmin: true)
        #expect(walk.uses[name] != nil, "\(name) is in the documents")
        #expect(walk.problem(name) == nil)
        #expect(walk.uses[name]?.count == 1, "\(name): \(walk.uses[name] ?? [:])")
    }

    /// The names issue 42 found in two shapes (or meanings) are one shape now.
    @Test(arguments: [
        "finish_first", "dog", "category_id", "category_name", "tracker_ids", "block_id", "branch_id",
        "dog_id", "user_id", "challenge_id", "age_range", "participants", "rank", "recommended_block_id",
        // The last of issue 42's names, each renamed from a name that meant two things.
        "team_id", "flow_id", "verb", "as_of", "placement", "is_recommended", "text_lines", "steps_done",
        "theory_ref", "content_ref", "answers_fallback", "increment", "action", "content", "fallback", "lines",
        "now", "position", "recommended", "step", "steps", "theory",
    ])
    func oneKind(name: String) throws {
        let walk = Self.appWalk(try Self.servedDocument())
        #expect(walk.uses[name] != nil, "\(name) is in the app's documents")
        #expect(walk.problem(name) == nil)
        #expect(walk.uses[name]?.count == 1, "\(name): \(walk.uses[name] ?? [:])")
    }

    static let brokenParts: [(JSON, String)] = [
        (
            [
                "A": ["properties": ["finish_first": ["type": "array", "items": ["type": "string"]]]],
                "B": ["properties": ["finish_first": ["type": "array", "items": ["type": "object"]]]],
            ],
            "finish_first: two kinds"
        ),
        (["A": ["properties": ["dog": ["type": "string"]]]], "dog: an entity's name for a non-object"),
        (["A": ["properties": ["block_id": ["type": "integer"]]]], "block_id: an id not a string"),
        (["A": ["properties": ["tracker_ids": ["type": "string"]]]], "tracker_ids: ids not a list of strings"),
    ]

    /// The rules refuse what they say they refuse (on a small document of their own).
    @Test(arguments: brokenParts)
    func aBrokenNameIsRefused(schemas: JSON, problem: String) throws {
        let names = schemas.objectValue?.keys.sorted() ?? []
        var responses: JSONObject = [:]
        for (index, name) in names.enumerated() {
            responses["\(200 + index)"] = [
                "content": ["application/json": ["schema": ["$ref": .string("#/components/schemas/\(name)")]]]
            ]
        }
        let document: JSON = [
            "paths": ["/v1/x": ["get": ["responses": .object(responses)]]],
            "components": ["schemas": schemas],
        ]
        let walk = Self.appWalk(document)
        let name = String(problem.prefix { $0 != ":" })
        #expect(walk.problem(name)?.hasPrefix(problem) == true, "\(walk.problem(name) ?? "no problem")")
    }
}
