import Core
import FeatureKit
import HTTP
import RevisionStore
import RuleEngine
import Store

/// The admin API of rule revisions: list, upload (publish), read, diff, activate, check a
/// draft, and the audit trail.
enum RevisionRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/rules/revisions", admin: true, list),
        FeatureRoute("POST", "/v1/rules/revisions", admin: true, role: .editor, publish),
        FeatureRoute("GET", "/v1/rules/revisions/{revision}", admin: true, show),
        FeatureRoute("GET", "/v1/rules/revisions/{from}/diff/{to}", admin: true, diff),
        FeatureRoute("POST", "/v1/rules/revisions/{revision}/activate", admin: true, role: .publisher, activate),
        FeatureRoute("POST", "/v1/rules/revisions/{revision}/preview", admin: true, role: .editor, preview),
        FeatureRoute("POST", "/v1/rules/check", admin: true, role: .editor, check),
        FeatureRoute("GET", "/v1/audit", admin: true, audit),
    ]

    static func list(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let limit = try limit(request)
        return try answer {
            [
                "active_revision_id": try service.store.activeRevision().map { .string($0.revision) } ?? .null,
                "revisions": .array(try revisionsJSON(service, limit: limit)),
                "required_approvals": .number(Double(try service.store.requiredApprovals())),
            ]
        }
    }

    /// Each revision with the message it was last activated with (a draft kept by a preview
    /// and published later carries the publisher's message there) and its approvals.
    private static func revisionsJSON(_ service: any ServiceContext, limit: Int) throws -> [JSON] {
        var activations: [String: RevisionActivation] = [:]
        for activation in try service.store.revisionActivations(limit: 1_000).reversed() {
            activations[activation.revision] = activation
        }
        let publisher = RevisionPublisher(store: service.store, engine: service.features, now: service.now)
        return try service.store.ruleRevisions(limit: limit).map { revision in
            guard case .object(var object) = revision.json else { return revision.json }
            if let activation = activations[revision.id] {
                object["activation"] = activation.json
            }
            object["approvals"] = try publisher.approvalState(of: revision).json
            return .object(object)
        }
    }

    /// `{files: {path: text|null}, message, base?, activate?}`: 201 with the gate report when it
    /// passes (200 when it is the active revision already), 422 with every diagnostic when not.
    /// With `activate: false` the revision is only kept (200 when it was kept already): an
    /// editor may do that; activating needs a publisher. When the revision still needs
    /// approvals it is kept and the answer is 202 with `approvals`.
    static func publish(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var fields = try RequestBody.fields(request)
        let message = (try? fields.string("message", maxLength: 2_000)) ?? ""
        let draft = Draft(&fields)
        let activate = (try? fields.optionalBool("activate")) ?? true
        try fields.check()
        if activate { try service.requireRole(.publisher, to: "publishing") }
        var publisher = RevisionPublisher(store: service.store, engine: service.features, now: service.now)
        // The candidate's tests run in a child process: one that cannot be stopped, crashes
        // libjq or runs out of memory costs that process, not this worker.
        publisher.runGates = { [gates = publisher.gates] files, parent in
            try IsolatedGates.run(gates, files, parent: parent, tests: true, in: service)
        }
        let outcome: RevisionPublisher.Outcome = try answer {
            try publisher.publish(
                try draft.files(in: service.store, served: service.servedFolders),
                author: service.adminName(of: request), message: message,
                activate: activate)
        }
        guard outcome.report.passed else { throw refusal(outcome.report) }
        if outcome.approvals != nil { return .json(outcome.json, status: 202) }
        return .json(outcome.json, status: (activate ? outcome.activated : outcome.kept) ? 201 : 200)
    }

    static func show(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        return try answer {
            let revision = try service.store.ruleRevision(id)
            let files = try service.store.ruleRevisionFiles(revision.id)
            guard case .object(var object) = revision.json else { return revision.json }
            object["active"] = .bool(try service.store.activeRevision()?.revision == revision.id)
            object["files"] = .object(
                JSONObject(files.files.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            return .object(object)
        }
    }

    static func diff(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let from = try parameters.require("from")
        let to = try parameters.require("to")
        return try answer {
            try RevisionPublisher(store: service.store, engine: service.features, now: service.now).diff(
                try service.store.ruleRevision(from), try service.store.ruleRevision(to)
            ).json
        }
    }

    /// `{message, emergency?}`: makes a kept revision active (a rollback when it is an earlier
    /// one); 409 `approval_required` while it lacks approvals, unless it is an emergency rollback.
    static func activate(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        var fields = try RequestBody.fields(request)
        let message = (try? fields.string("message", maxLength: 2_000)) ?? ""
        let emergency = (try? fields.optionalBool("emergency")) ?? false
        try fields.check()
        return try answer {
            let revision = try RevisionPublisher(store: service.store, engine: service.features, now: service.now)
                .activate(id, author: service.adminName(of: request), message: message, emergency: emergency)
            return ["active_revision": revision.json]
        }
    }

    /// `{files, base?, tests?}`: the gate report of a draft, stored nowhere (200 either way;
    /// `passed` says whether it would publish). Tests run only with `tests: true`.
    static func check(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var fields = try RequestBody.fields(request)
        let draft = Draft(&fields)
        let runTests = (try? fields.optionalBool("tests")) ?? false
        try fields.check()
        return try answer {
            let files = try draft.files(in: service.store, served: service.servedFolders)
            let parent = try service.store.activeRevision().map { try service.store.ruleRevisionFiles($0.revision) }
            let gates = RevisionGates(engine: service.features)
            // Tests run in a child process, as for a publish; loading alone (as an editor types)
            // stays here.
            guard runTests else { return gates.run(files, parent: parent, tests: false).json }
            return try IsolatedGates.run(gates, files, parent: parent, tests: true, in: service).json
        }
    }

    /// `{days?}`: what a kept revision would change for the dogs active in the last `days` (7),
    /// against the active one; nothing is written.
    static func preview(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        var fields = try RequestBody.fields(request, optional: true)
        let days = (try? fields.optionalInteger("days", in: 1...366)) ?? 7
        try fields.check()
        return try answer {
            let gates = RevisionGates(engine: service.features)
            let candidate = try service.store.ruleRevision(id)
            var report = GateReport(revision: candidate.id, parent: nil)
            guard let after = gates.load(try service.store.ruleRevisionFiles(candidate.id), into: &report) else {
                throw APIError(422, "candidate_refused", report.summary, errors: report.diagnostics.map(\.json))
            }
            let now = service.now()
            return try ImpactPreview(store: service.store, engine: service.features).run(
                active: RuleEvaluator(ruleSet: service.ruleSet), candidate: after.evaluator,
                since: now - Double(days) * 86_400, now: now
            ).json
        }
    }

    static func audit(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let limit = try limit(request)
        return try answer { ["audit": .array(try service.store.auditEntries(limit: limit).map(\.json))] }
    }

    // MARK: Helpers

    private static func limit(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return 50 }
        guard let n = Int(text), (1...1_000).contains(n) else {
            throw APIError(400, "invalid_query", "limit must be a number from 1 to 1000")
        }
        return n
    }

    /// Runs `body`, answering its value as JSON; errors become the API's.
    static func answer(_ body: () throws -> JSON) throws(APIError) -> HTTPResponse {
        .json(try answer(body) as JSON)
    }

    static func answer<T>(_ body: () throws -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch let error as APIError {
            throw error
        } catch let error as RevisionError {
            switch error {
            case .invalidFiles(let problems):
                throw APIError(
                    422, error.code, "the files cannot be a revision",
                    errors: problems.map { ["field": .string("files.\($0.path)"), "message": .string($0.message)] })
            case .unknown, .ambiguous:
                throw APIError(404, error.code, error.description)
            }
        } catch let error as PublishError {
            throw APIError(422, "invalid_value", error.message)
        } catch let error as ApprovalRequired {
            throw APIError(
                409, "approval_required", error.message,
                errors: [["needed": .number(Double(error.needed)), "have": .number(Double(error.have))]])
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read or written: \(error)")
        }
    }

    private static func refusal(_ report: GateReport) -> APIError {
        let tests: [JSON] = report.failedTests.map {
            [
                "code": "test_failed", "message": .string("\($0.fullName): \($0.message ?? "")"),
                "location": .string($0.location.description),
            ]
        }
        return APIError(422, "gates_refused", report.summary, errors: report.diagnostics.map(\.json) + tests)
    }
}

/// The files a request sends: `files` (path → text, or null to delete a file of the base) over
/// `base` (`active` or a revision id; none: the files are the whole revision).
struct Draft {
    var files: [String: String?]
    var base: String?

    init(_ fields: inout FieldReader) {
        base = try? fields.optionalString("base", maxLength: 64)
        var files: [String: String?] = [:]
        for (path, value) in (try? fields.object("files")) ?? [:] {
            switch value {
            case .string(let text): files[path] = .some(text)
            case .null: files[path] = .some(nil)
            default:
                fields.fail(
                    "files", at: path, .wrongType,
                    "must be the file's text (a string), or null to remove it, got \(value.typeName)")
            }
        }
        self.files = files
    }

    /// The whole set of files: the base's with these over them. Base `active` before any
    /// revision is published is the folders the service serves (`served`), so that the first
    /// revision can be made from the console.
    func files(in store: any StoreReader, served: ServedFolders? = nil) throws -> RevisionFiles {
        var result: [String: String] = [:]
        if let base {
            let id = base == "active" ? try store.activeRevision()?.revision : try store.ruleRevision(base).id
            if let id {
                result = try store.ruleRevisionFiles(id).files
            } else if let served {
                result = try RevisionFiles(rulesDirectory: served.rules, pluginsDirectory: served.plugins).files
            } else {
                throw PublishError(message: "base `active`: no revision is active yet")
            }
        }
        for (path, text) in files { result[path] = text }
        return try RevisionFiles(result)
    }
}
