import Core
import Engine
import FeatureKit
import Foundation
import HTTP
import JQ
import RuleEngine

/// A user's onboarding: the step to render now, and skipping it.
enum OnboardingRoutes {
    /// `GET /v1/users/{user_id}/onboarding`: the current step with its overlay data (target,
    /// highlight, tooltip, trigger, can_skip) and each flow's state.
    static func show(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        return .json(try view(service, user: user, texts: service.texts(for: request, user: user)))
    }

    /// `GET /v1/users/{user_id}/onboarding/flows`: every flow's configuration for the user's
    /// variant, with what they did, for a coordinator that runs in the app.
    static func flows(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        return try APIError.answering {
            try OnboardingFlowsView.json(
                user: user, flows: OnboardingFlows(ruleSet: service.ruleSet), store: service.store,
                texts: service.texts(for: request, user: user))
        }
    }

    /// `POST /v1/users/{user_id}/onboarding/skip` with `{step_id, flow_id?, event_id?, occurred_at?}`:
    /// an `onboarding_step_skipped` event through the one ingest path. The flow defaults to
    /// the one whose step is shown now; a step with `can_skip: false` is refused (409).
    static func skip(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        let texts = service.texts(for: request, user: user)
        var fields = try RequestBody.fields(request)
        let step = (try? fields.string("step_id")) ?? ""
        let requestedFlow = try? fields.optionalString("flow_id")
        fields.renamed("flow", to: "flow_id")
        let eventID = try? fields.optionalIdentifier("event_id")
        let occurredAt = try? fields.optionalString("occurred_at")
        try fields.check()
        let flow: String
        if let requestedFlow {
            flow = requestedFlow
        } else {
            guard case .object(let current)? = try view(service, user: user, texts: texts)["current"],
                let shown = current["flow_id"]?.stringValue
            else {
                let message = "user \(user) has no onboarding step to skip"
                throw APIError(
                    409, "not_in_progress", message, errors: [APIError.parameterEntry("user_id", .invalid, message)])
            }
            flow = shown
        }
        let event: JSONObject = [
            "event_id": .string(eventID ?? RouteEvents.newID()), "user_id": .string(user),
            "type": .string(OnboardingConsumer.skipEventType),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.now())),
            "payload": .object(["flow": .string(flow), "step_id": .string(step)]),
        ]
        let result = service.ingest([.object(event)])[0]
        var extra: JSONObject = [:]
        if result.status != .rejected { extra["onboarding"] = try view(service, user: user, texts: texts) }
        return service.respond(
            result, to: request, extra: extra, fieldsFrom: [("/payload/flow", "/flow_id"), ("/payload", "")],
            otherwise: "user_id")
    }

    private static func view(_ service: any ServiceContext, user: String, texts: RequestTexts) throws(APIError)
        -> JSON
    {
        do {
            return try OnboardingView.json(
                user: user, flows: OnboardingFlows(ruleSet: service.ruleSet), store: service.store,
                now: service.now(), texts: texts)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }
}
