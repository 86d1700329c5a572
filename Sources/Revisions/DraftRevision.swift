import Core
import FeatureKit
import HTTP
import RevisionStore
import RuleEngine
import Store

/// A draft revision made by an admin route that edits files of a base revision (the parameter
/// values, an experiment, an onboarding flow): the base read, the edited files kept through
/// the gates of `POST /v1/rules/revisions` with `activate: false`, and the answer every such
/// route gives. The draft is then previewed, diffed and activated with the revision routes.
public struct DraftRevision {
    /// The base revision's id.
    public var id: String
    /// Its files.
    public var files: RevisionFiles
    /// Its rule set (the one served when the base is the active revision).
    public var ruleSet: RuleSet

    /// The revision `base` names: `active` or a kept revision's id.
    /// - Throws: `409 no_active_revision`, `404` for an unknown id, `503` when the store fails,
    ///   `422 revision_does_not_load`.
    public init(base: String, service: any ServiceContext) throws(APIError) {
        let store = service.store
        do {
            if base == "active" {
                guard let active = try store.activeRevision()?.revision else {
                    throw APIError(
                        409, "no_active_revision",
                        "no revision is active yet: publish the rules once ('journey publish' or POST /v1/rules/revisions), or give `base`"
                    )
                }
                id = active
            } else {
                id = try store.ruleRevision(base).id
            }
            files = try store.ruleRevisionFiles(id)
        } catch let error as APIError {
            throw error
        } catch let error as RevisionError {
            throw APIError(404, error.code, error.description)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
        ruleSet = try ParameterDraft.ruleSet(of: files, id: id, service: service)
    }

    /// A path of the rule set's files as a revision names it (`Rules/…`), whatever folder the
    /// rules were loaded from.
    public func revisionPath(_ file: String) -> String {
        let folder = ruleSet.rulesDirectory + "/"
        return file.hasPrefix(folder) ? "Rules/" + file.dropFirst(folder.count) : file
    }

    /// Keeps the base's files with `edited` (path → text) as a draft, not active, under the
    /// admin's name. 201 when kept now, 200 when kept already (or the active revision);
    /// `422 gates_refused` with every diagnostic (`pointer` added by `pointer`) otherwise.
    /// `extra` joins the answer: `{revision, base, kept, active, gates, …extra}`.
    public func keep(
        _ edited: [String: String], message: String, request: HTTPRequest, service: any ServiceContext,
        extra: JSONObject = [:], pointer: (Diagnostic) -> String? = { _ in nil }
    ) throws(APIError) -> HTTPResponse {
        let draft = try merged(edited)
        let publisher = RevisionPublisher(store: service.store, engine: service.features, now: service.now)
        let outcome: RevisionPublisher.Outcome
        do {
            outcome = try publisher.publish(
                draft, author: service.adminName(of: request), message: message, activate: false)
        } catch let error as PublishError {
            throw APIError(422, "invalid_value", error.message)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be written: \(error)")
        }
        guard outcome.report.passed else {
            let diagnostics = Self.pointed(outcome.report.diagnostics, pointer)
            let tests: [JSON] = outcome.report.failedTests.map {
                [
                    "code": "test_failed", "message": .string("\($0.fullName): \($0.message ?? "")"),
                    "location": .string($0.location.description),
                ]
            }
            throw APIError(422, "gates_refused", outcome.report.summary, errors: diagnostics + tests)
        }
        let isActive = (try? service.store.activeRevision()?.revision) == outcome.report.revision
        var body: JSONObject = [
            "draft_revision": outcome.revision?.json ?? .null, "base": .string(id), "kept": .bool(outcome.kept),
            "active": .bool(isActive), "gates": outcome.report.json,
        ]
        for (key, value) in extra { body[key] = value }
        return .json(.object(body), status: outcome.kept ? 201 : 200)
    }

    /// The base's files with `edited` (path → text) over them.
    /// - Throws: `422` when they cannot be a revision.
    public func merged(_ edited: [String: String]) throws(APIError) -> RevisionFiles {
        var all = files.files
        for (path, text) in edited { all[path] = text }
        do {
            return try RevisionFiles(all)
        } catch {
            throw APIError(422, error.code, "the files cannot be a revision: \(error.description)")
        }
    }

    /// What the gates say of `files`, a draft over the revision `base`, without keeping it:
    /// the gates' report (the rule tests only with `tests`) with each diagnostic's `pointer`
    /// (from `pointer`) and `base`; the draft routes' `check` answer.
    public static func check(
        _ files: RevisionFiles, base: String, service: any ServiceContext, tests: Bool,
        pointer: (Diagnostic) -> String?
    ) throws(APIError) -> JSONObject {
        let parent: RevisionFiles?
        do {
            parent = try service.store.activeRevision().map { try service.store.ruleRevisionFiles($0.revision) }
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
        let report = RevisionGates(engine: service.features).run(files, parent: parent, tests: tests)
        guard case .object(var object) = report.json else { return [:] }
        object["diagnostics"] = .array(pointed(report.diagnostics, pointer))
        object["base"] = .string(base)
        return object
    }

    /// Each diagnostic as JSON, with the `pointer` to the request's field that `pointer` names.
    static func pointed(_ diagnostics: [Diagnostic], _ pointer: (Diagnostic) -> String?) -> [JSON] {
        diagnostics.map { diagnostic in
            guard let place = pointer(diagnostic), case .object(var object) = diagnostic.json else {
                return diagnostic.json
            }
            object["pointer"] = .string(place)
            return .object(object)
        }
    }
}
