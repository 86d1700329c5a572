import Core
import Testing

/// The app's contract says one thing one way: the served `/openapi.json` is walked
/// (``OpenAPINameWalk``) through every operation — its query and path parameters, its body, its
/// answers and every schema they reach — and a name is refused when it
///
/// - has two kinds (a string here, an object there: `finish_first` as ids and as objects, `dog`
///   as an id and as `{id, name}`, `?flow=` as an id beside a body's `flow_id`), integer and
///   number being one kind and an untyped schema matching any; `id` is exempt, being each
///   object's own identity;
/// - is an entity's name (`dog`, `block`, `category`, …) but not an object: an entity's id is
///   `<entity>_id` (in a path too: `/v1/dogs/{dog_id}`), its name `<entity>_name`;
/// - ends in `_id` but is not a string, or in `_ids` but is not a list of strings.
///
/// Nothing is exempt: a name that breaks the rules fails the test, and the synthetic documents
/// below prove that a conflict introduced anywhere the walk goes is found.
@Suite struct OpenAPINamingTests {
    static let shared = SharedService()

    static func servedDocument() throws -> JSON {
        try shared.use { harness in
            let response = harness.send("GET", "/openapi.json")
            #expect(response.status == 200)
            return response.json
        }
    }

    @Test func oneNameForOneThingAcrossTheAppsRoutes() throws {
        let walk = OpenAPINameWalk(try Self.servedDocument())
        #expect(walk.uses.count > 100, "the walk reached the app's schemas")
        #expect(walk.uses["dog_id"]?.values.contains { $0.contains { $0.hasSuffix("{dog_id}") } } == true)
        for problem in walk.problems { Issue.record("\(problem)") }
    }

    /// The admin routes (the console's: flows, funnels, experiments, revisions, texts) under the
    /// same rule, walked together with the app's, so that a name means one thing whoever calls.
    @Test func oneNameForOneThingAcrossEveryRouteAdminIncluded() throws {
        let document = try Self.servedDocument()
        let walk = OpenAPINameWalk(document, includingAdmin: true)
        #expect(walk.uses.count > OpenAPINameWalk(document).uses.count, "the admin schemas were walked")
        for problem in walk.problems { Issue.record("\(problem)") }
    }

    /// The admin names renamed to the app's (issue 42), and the names each meaning kept: the
    /// flow editor's and the funnel's `flow_id`, a tooltip's `placement`, …; the last twenty
    /// conflicts: an audit entry's `operation` (`action` is a block's); the active revision's
    /// id `active_revision_id` and its object `active_revision` (`active` is a flag); the counts
    /// `dog_count`, `event_count`, `rule_count`, `test_count` (`dogs`, `events`, `rules`, `tests`
    /// are lists or flags); a preview's `event_impact`; a diff's `change_counts`, `file_changes`
    /// and `diff_lines` (`summary` is a gate report's line, `files` path → text, `lines` the
    /// map's); a flow check's `minor_impact`, `major_impact`, `kept_impact` (`minor`, `major`
    /// are next versions, `kept` a flag); an experiment's `metric_definitions` and
    /// `metric_results` (`metrics` are a dog's); a diagnostic's `related_notes` (`notes` are a
    /// dog's); a draft's `draft_revision` and a publish's `published_revision` (`revision` is an
    /// id); an app event's `rule_ids`; a schedule answer's `scheduled_activation` (`schedule` is
    /// a habit's days); the funnel's `all_variants` and `variant_names` (`total` is a count,
    /// `variants` objects); a parameter's `choices` (`values` is what a change sets); a new
    /// experiment's `variation_names` (`variations` are objects). Parameters: `{dog_id}`,
    /// `{block_id}`, `{branch_id}`, `{challenge_id}`, `{flow_id}`, `{user_id}`,
    /// `{schedule_id}`; `?flow_id=`, `?user_id=`, `?after_outbox_id=` (`after` is a flow's); a dog
    /// view's `explanations` (`?explain=` asks for them).
    @Test(arguments: [
        "flow_id", "placement", "highlight_shape", "dog_id", "plural_category", "highlight", "position", "trigger",
        "cause", "evaluated_at", "use_fallback", "now", "fallback", "as_of",
        "action", "operation", "active", "active_revision_id", "active_revision", "dogs", "dog_count", "events",
        "event_count", "event_impact", "files", "file_changes", "kept", "kept_impact", "lines", "diff_lines", "major",
        "major_impact", "minor", "minor_impact", "metrics", "metric_definitions", "metric_results", "notes",
        "related_notes", "revision", "draft_revision", "published_revision", "rules", "rule_count", "rule_ids",
        "schedule", "scheduled_activation", "summary", "change_counts", "tests", "test_count", "total",
        "all_variants", "values", "choices", "variants", "variant_names", "variations", "variation_names",
        "block_id", "branch_id", "challenge_id", "user_id", "schedule_id", "explain", "explanations",
        "after_outbox_id", "after",
    ])
    func oneKindAdminIncluded(name: String) throws {
        let walk = OpenAPINameWalk(try Self.servedDocument(), includingAdmin: true)
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
        let walk = OpenAPINameWalk(try Self.servedDocument())
        #expect(walk.uses[name] != nil, "\(name) is in the app's documents")
        #expect(walk.problem(name) == nil)
        #expect(walk.uses[name]?.count == 1, "\(name): \(walk.uses[name] ?? [:])")
    }

    /// A small document of its own: `paths` with an operation each, schemas and parameters.
    static func document(paths: JSONObject, schemas: JSONObject = [:], parameters: JSONObject = [:]) -> JSON {
        ["paths": .object(paths), "components": ["schemas": .object(schemas), "parameters": .object(parameters)]]
    }

    static func answer(_ schema: JSON) -> JSON {
        ["200": ["content": ["application/json": ["schema": schema]]]]
    }

    static func reference(_ name: String) -> JSON { .string("#/components/schemas/\(name)") }

    struct Conflict: CustomTestStringConvertible, Sendable {
        var document: JSON
        /// The problem the walk must report (its beginning).
        var problem: String
        /// The admin operations walked too (else an admin-only conflict must go unseen).
        var includingAdmin = true
        var testDescription: String { problem }
    }

    /// A conflict introduced in each place the walk goes, each of which must be found: two
    /// answers, a body against an answer, an admin answer against an app's, a query parameter
    /// against a property, a path parameter under an entity's name, a shared parameter by
    /// reference, and the id and entity rules.
    static let conflicts: [Conflict] = [
        Conflict(
            document: document(
                paths: ["/v1/x": ["get": ["responses": answer(["$ref": reference("A")])]]],
                schemas: [
                    "A": [
                        "properties": [
                            "finish_first": ["type": "array", "items": ["type": "string"]],
                            "b": ["$ref": reference("B")],
                        ]
                    ],
                    "B": ["properties": ["finish_first": ["type": "array", "items": ["type": "object"]]]],
                ]),
            problem: "finish_first: two kinds"),
        Conflict(
            document: document(paths: [
                "/v1/x": ["get": ["responses": answer(["properties": ["dog": ["type": "string"]]])]]
            ]),
            problem: "dog: an entity's name for a non-object"),
        Conflict(
            document: document(
                paths: ["/v1/x": ["get": ["responses": answer(["properties": ["block_id": ["type": "integer"]]])]]]),
            problem: "block_id: an id not a string"),
        Conflict(
            document: document(
                paths: ["/v1/x": ["get": ["responses": answer(["properties": ["tracker_ids": ["type": "string"]]])]]]),
            problem: "tracker_ids: ids not a list of strings"),
        Conflict(
            document: document(paths: [
                "/v1/x": [
                    "put": [
                        "requestBody": [
                            "content": [
                                "application/json": [
                                    "schema": [
                                        "properties": ["variations": ["type": "array", "items": ["type": "string"]]]
                                    ]
                                ]
                            ]
                        ],
                        "responses": answer([
                            "properties": ["variations": ["type": "array", "items": ["type": "object"]]]
                        ]),
                    ]
                ]
            ]),
            problem: "variations: two kinds"),
        Conflict(
            document: document(paths: [
                "/v1/app": ["get": ["responses": answer(["properties": ["total": ["type": "integer"]]])]],
                "/v1/admin": [
                    "get": [
                        "security": [["admin": []]],
                        "responses": answer(["properties": ["total": ["properties": ["started": ["type": "integer"]]]]]
                        ),
                    ]
                ],
            ]),
            problem: "total: two kinds"),
        Conflict(
            document: document(paths: [
                "/v1/dogs/{dog_id}": [
                    "get": [
                        "parameters": [
                            ["name": "dog_id", "in": "path", "schema": ["type": "string"]],
                            ["name": "explain", "in": "query", "schema": ["type": "boolean"]],
                        ],
                        "responses": answer(["properties": ["explain": ["type": "array", "items": ["type": "object"]]]]
                        ),
                    ]
                ]
            ]),
            problem: "explain: two kinds"),
        Conflict(
            document: document(paths: [
                "/v1/flows/{flow}": ["get": ["parameters": [["name": "flow", "in": "path"]], "responses": [:]]]
            ]),
            problem: "flow: an entity's name for a non-object"),
        Conflict(
            document: document(
                paths: [
                    "/v1/schedules/{schedule}": [
                        "parameters": [["$ref": "#/components/parameters/Schedule"]],
                        "delete": ["responses": [:]],
                    ],
                    "/v1/trackers": [
                        "get": [
                            "responses": answer([
                                "properties": ["schedule": ["type": "array", "items": ["type": "string"]]]
                            ])
                        ]
                    ],
                ],
                parameters: ["Schedule": ["name": "schedule", "in": "path", "schema": ["type": "integer"]]]),
            problem: "schedule: two kinds"),
        Conflict(
            document: document(paths: [
                "/v1/funnel": [
                    "get": [
                        "parameters": [["name": "user_id", "in": "query", "schema": ["type": "integer"]]],
                        "responses": [:],
                    ]
                ]
            ]),
            problem: "user_id: an id not a string"),
    ]

    /// A conflict introduced anywhere the walk goes fails the check the served document passes.
    @Test(arguments: conflicts)
    func aNewConflictIsFound(_ conflict: Conflict) {
        let walk = OpenAPINameWalk(conflict.document, includingAdmin: conflict.includingAdmin)
        let name = String(conflict.problem.prefix { $0 != ":" })
        #expect(walk.problem(name)?.hasPrefix(conflict.problem) == true, "\(walk.problem(name) ?? "no problem")")
        #expect(walk.problems.contains { $0.hasPrefix(conflict.problem) }, "\(walk.problems)")
    }

    /// The app's walk leaves the admin operations out, so an admin-only conflict is found only
    /// with them; and a document that keeps the rules has no problem at all.
    @Test func theAppWalkLeavesTheAdminOperationsOutAndACleanDocumentPasses() {
        let adminConflict = Self.conflicts.first { $0.problem.hasPrefix("total:") }!.document
        #expect(OpenAPINameWalk(adminConflict).problems == [])
        #expect(OpenAPINameWalk(adminConflict, includingAdmin: true).problems.count == 1)
        let clean = Self.document(
            paths: [
                "/v1/dogs/{dog_id}": [
                    "get": [
                        "parameters": [["name": "dog_id", "in": "path", "schema": ["type": "string"]]],
                        "responses": Self.answer([
                            "properties": [
                                "dog": ["properties": ["id": ["type": "string"], "name": ["type": "string"]]],
                                "dog_id": ["type": "string"], "total": ["type": "integer"],
                            ]
                        ]),
                    ]
                ]
            ])
        let walk = OpenAPINameWalk(clean, includingAdmin: true)
        #expect(walk.uses.keys.sorted() == ["dog", "dog_id", "id", "name", "total"])
        #expect(walk.problems == [])
    }
}
