import Core
import FeatureKit
import HTTP
import RevisionStore
import RuleEngine
import Store

/// The admin API of rule parameters: read them (declaration, value, default, where each is
/// written), and put new values into a draft revision — kept, not active, to preview, diff and
/// activate like any other (`/v1/rules/revisions/{revision}/preview`, `…/activate`).
enum ParameterRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/rules/params", admin: true, served),
        FeatureRoute("PUT", "/v1/rules/params", admin: true, role: .editor, put),
        FeatureRoute("POST", "/v1/rules/params/check", admin: true, role: .editor, check),
        FeatureRoute("GET", "/v1/rules/revisions/{revision}/params", admin: true, ofRevision),
    ]

    /// The parameters of the rule set being served.
    static func served(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        .json(list(service.ruleSet))
    }

    /// The parameters of a kept revision (a draft, or an earlier one).
    static func ofRevision(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        let files: RevisionFiles
        let revision: String
        do {
            revision = try service.store.ruleRevision(id).id
            files = try service.store.ruleRevisionFiles(revision)
        } catch let error as RevisionError {
            throw APIError(404, error.code, error.description)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
        return .json(list(try ParameterDraft.ruleSet(of: files, id: revision, service: service)))
    }

    /// `{values: {NAME: value|null}, message?, base?}`: a draft revision with those values over
    /// `base` (`active` by default), kept when its gates pass (201; 200 when it was kept already
    /// or is the active one), not activated. 422 names each refused value by its pointer.
    static func put(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (draft, message, _) = try read(request, service: service, withTests: false)
        let publisher = RevisionPublisher(store: service.store, engine: service.features, now: service.now)
        let outcome: RevisionPublisher.Outcome
        do {
            outcome = try publisher.publish(
                draft.files, author: service.adminName(of: request), message: message ?? summary(draft),
                activate: false)
        } catch let error as PublishError {
            throw APIError(422, "invalid_value", error.message)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be written: \(error)")
        }
        guard outcome.report.passed else {
            throw APIError(
                422, "gates_refused", outcome.report.summary,
                errors: draft.errors(outcome.report.diagnostics) + failedTests(outcome.report))
        }
        let isActive = (try? service.store.activeRevision()?.revision) == outcome.report.revision
        let body: JSON = [
            "draft_revision": outcome.revision?.json ?? .null, "base": .string(draft.base), "kept": .bool(outcome.kept),
            "active": .bool(isActive), "changes": draft.changesJSON, "gates": outcome.report.json,
        ]
        return .json(body, status: outcome.kept ? 201 : 200)
    }

    /// The same request as `PUT`, `tests?` too: the gate report of the draft, stored nowhere
    /// (200 either way; `passed` says whether it would be kept).
    static func check(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (draft, _, runTests) = try read(request, service: service, withTests: true)
        var object = try DraftRevision.check(
            draft.files, base: draft.base, service: service, tests: runTests, pointer: draft.pointer)
        object["changes"] = draft.changesJSON
        return .json(.object(object))
    }

    // MARK: Helpers

    /// The draft a `PUT` or `check` body describes, its message, and (for `check`) whether to
    /// run the rule tests.
    private static func read(_ request: HTTPRequest, service: any ServiceContext, withTests: Bool)
        throws(APIError) -> (ParameterDraft, String?, Bool)
    {
        var fields = try RequestBody.fields(request)
        let values = (try? fields.object("values")) ?? [:]
        if values.isEmpty, fields.has("values"), fields.errors.isEmpty {
            fields.fail("values", .invalid, "must set at least one value")
        }
        if values.count > 500 { fields.fail("values", .outOfRange, "sets at most 500 values at once") }
        let message = (try? fields.optionalString("message", maxLength: 2_000)) ?? nil
        let base = ((try? fields.optionalIdentifier("base")) ?? nil) ?? "active"
        let tests = withTests ? ((try? fields.optionalBool("tests")) ?? nil) ?? false : false
        try fields.check()
        return (try ParameterDraft(values: values, base: base, service: service), message, tests)
    }

    /// Every parameter, its places named as a revision names its files (`Rules/…`) whatever
    /// folder the rules were loaded from.
    private static func list(_ ruleSet: RuleSet) -> JSON {
        let folder = ruleSet.rulesDirectory + "/"
        func revisionPath(_ place: JSON?) -> JSON {
            guard case .object(var object)? = place, let file = object["file"]?.stringValue else { return .null }
            if file.hasPrefix(folder) { object["file"] = .string("Rules/" + file.dropFirst(folder.count)) }
            return .object(object)
        }
        let parameters: [JSON] = ruleSet.parameters.map { parameter in
            guard case .object(var object) = parameter.json else { return parameter.json }
            for key in ["declared_at", "default_at", "value_at"] { object[key] = revisionPath(object[key]) }
            if let choices = ruleSet.parameterChoices.names(of: parameter.declaration.type) {
                object["choices"] = .array(choices.map(JSON.string))
            }
            return .object(object)
        }
        return [
            "revision": .string(ruleSet.revision), "values_file": .string(ParameterDraft.valuesPath),
            "parameters": .array(parameters),
        ]
    }

    /// `params: recommendation.by_branch_prefers = weakest_topic, walk-50k.target_km = default`.
    private static func summary(_ draft: ParameterDraft) -> String {
        let parts = draft.changes.map {
            "\($0.name) = \($0.to == .null ? "default" : $0.to.stringValue ?? $0.to.compactText)"
        }
        let text = "params: " + parts.joined(separator: ", ")
        return text.count <= 2_000 ? text : String(text.prefix(1_997)) + "…"
    }

    private static func failedTests(_ report: GateReport) -> [JSON] {
        report.failedTests.map {
            [
                "code": "test_failed", "message": .string("\($0.fullName): \($0.message ?? "")"),
                "location": .string($0.location.description),
            ]
        }
    }
}
