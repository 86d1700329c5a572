import Core
import FeatureKit
import HTTP
import RevisionStore
import Store

/// The admin API of approvals and scheduled activations, and the files a draft starts from.
enum GovernanceRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/rules/files", admin: true, files),
        FeatureRoute("POST", "/v1/rules/revisions/{revision}/approve", admin: true, role: .publisher, approve),
        FeatureRoute("POST", "/v1/rules/revisions/{revision}/schedule", admin: true, role: .publisher, schedule),
        FeatureRoute("GET", "/v1/rules/schedules", admin: true, schedules),
        FeatureRoute("DELETE", "/v1/rules/schedules/{schedule_id}", admin: true, role: .publisher, cancel),
    ]

    /// The files a draft starts from: the active revision's, or before the first publish the
    /// folders the service serves (`source` says which).
    static func files(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try RevisionRoutes.answer {
            if let active = try service.store.activeRevision() {
                let files = try service.store.ruleRevisionFiles(active.revision)
                return ["source": "revision", "revision": .string(active.revision), "files": json(files)]
            }
            guard let folders = service.servedFolders else {
                return ["source": "none", "revision": .null, "files": [:]]
            }
            let files = try RevisionFiles(rulesDirectory: folders.rules, pluginsDirectory: folders.plugins)
            return ["source": "folders", "revision": .null, "files": json(files)]
        }
    }

    /// `{message?}`: the caller approves the revision's content (not their own revision).
    static func approve(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        var fields = try RequestBody.fields(request, optional: true)
        let message = (try? fields.optionalString("message", maxLength: 2_000)) ?? ""
        try fields.check()
        return try RevisionRoutes.answer {
            let state = try RevisionPublisher(store: service.store, engine: service.features, now: service.now)
                .approve(id, approver: service.adminName(of: request), message: message ?? "")
            return ["approvals": state.json]
        }
    }

    /// `{at, message}`: activates the revision at `at` (ISO 8601, in the future) on every
    /// instance; 409 while it lacks approvals.
    static func schedule(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let id = try parameters.require("revision")
        var fields = try RequestBody.fields(request)
        let message = (try? fields.string("message", maxLength: 2_000)) ?? ""
        let atText = (try? fields.string("at", maxLength: 64)) ?? ""
        try fields.check()
        guard let at = Timestamp.parse(atText) else {
            throw APIError(422, "invalid_value", "at must be a time such as 2026-12-06T09:00:00Z, got `\(atText)`")
        }
        return try RevisionRoutes.answer {
            let schedule = try RevisionPublisher(store: service.store, engine: service.features, now: service.now)
                .schedule(id, at: at, author: service.adminName(of: request), message: message)
            return ["scheduled_activation": schedule.json]
        }
    }

    /// The pending schedules (with `?all=true`, every one), soonest first.
    static func schedules(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let all = request.query("all") == "true"
        return try RevisionRoutes.answer {
            ["schedules": .array(try service.store.revisionSchedules(all: all).map(\.json))]
        }
    }

    /// `{message}`: cancels a pending schedule (404 when there is none; 409 when it ran or was
    /// cancelled already).
    static func cancel(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let text = parameters.values["schedule_id"] ?? ""
        guard let id = Int64(text) else { throw APIError.notFound("unknown_schedule", "no schedule \(text)") }
        var fields = try RequestBody.fields(request, optional: true)
        let message = (try? fields.optionalString("message", maxLength: 2_000)) ?? ""
        try fields.check()
        let exists = (try? service.store.revisionSchedule(id)) != nil
        guard exists else { throw APIError.notFound("unknown_schedule", "no schedule \(id)") }
        let cancelled = try RevisionRoutes.answer {
            try RevisionPublisher(store: service.store, engine: service.features, now: service.now)
                .cancelSchedule(id, author: service.adminName(of: request), message: message ?? "cancelled")
        }
        guard cancelled else {
            throw APIError(409, "schedule_settled", "schedule \(id) already ran or was cancelled")
        }
        return .json(["cancelled": .number(Double(id))])
    }

    private static func json(_ files: RevisionFiles) -> JSON {
        .object(JSONObject(files.files.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }
}
