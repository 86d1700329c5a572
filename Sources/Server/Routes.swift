import Core
import FeatureKit
import HTTP
import JQ
import RuleEngine
import Store

extension JourneyService {
    typealias Handler = @Sendable (JourneyService, HTTPRequest, RouteParameters) throws(APIError) -> HTTPResponse

    /// The API's routes: the engine's own, and every feature's (``ServiceMetrics`` counts them by
    /// their index: keep the order stable). Each declares who may call it; ``RouteGuard`` checks
    /// that before the handler runs.
    static func makeRouter(features: FeatureSet) -> Router<JourneyService> {
        var router = Router<JourneyService>()
        func add(
            _ method: String, _ pattern: String, _ access: RouteAccess, role: AdminRole? = nil,
            _ handler: @escaping Handler
        ) {
            let role = role ?? FeatureRoute.defaultRole(method)
            router.add(method, pattern, access: access, role: role) { service, request, parameters in
                // The primary checks who owns a dog: a view's standby is chosen after, once the
                // caller is known (their own writes are what it must have replayed).
                switch service.routeGuard.admit(
                    request, access: access, role: role, parameters: parameters, store: service.database)
                {
                case .failure(let refusal): return refusal.response
                case .success(let principal):
                    service.principal = principal
                    service.evaluator.inputKey = QuarantineKey.of(parameters: parameters, principal: principal)
                    if let refusal = service.rateLimits.admit(
                        request, access: access, principal: principal, parameters: parameters)
                    {
                        return refusal.response
                    }
                }
                do throws(APIError) {
                    return try handler(service, request, RouteParameters(parameters))
                } catch {
                    return error.response
                }
            }
        }
        // Operations
        add("GET", "/healthz", .open, Operations.health)
        add("GET", "/readyz", .open, Operations.ready)
        add("GET", "/metrics", .service(.metrics), Operations.metrics)
        add("GET", "/openapi.json", .open, Operations.openAPI)
        // Events
        add("POST", "/v1/events", .user([.bodyEvents("events")]), EventRoutes.ingest)
        // Every feature's routes
        for route in features.routes {
            let handler = route.handler
            add(route.method, route.pattern, route.access, role: route.role) {
                service, request, parameters throws(APIError) in
                try handler(service, request, parameters)
            }
        }
        // Reminders (the push sender's, across users)
        add("GET", "/v1/reminders/due", .service(.reminders), ReminderRoutes.due)
        add("POST", "/v1/reminders/sent", .service(.reminders), ReminderRoutes.sent)
        // Analytics (the analytics pipeline's, across users)
        add("GET", "/v1/analytics/pending", .service(.analytics), AnalyticsRoutes.pending)
        add("POST", "/v1/analytics/sent", .service(.analytics), AnalyticsRoutes.sent)
        // Admin
        add("GET", "/v1/rules", .service(.admin), AdminRoutes.rules)
        add("POST", "/v1/rules/reload", .service(.admin), AdminRoutes.reload)
        add("POST", "/v1/rules/{rule}/evaluate", .service(.admin), role: .editor, AdminRoutes.evaluate)
        add("DELETE", "/v1/rules/{rule}/quarantine", .service(.admin), AdminRoutes.liftQuarantine)
        add("POST", "/v1/eval", .service(.admin), role: .editor, AdminRoutes.eval)
        // A user's profile (their locale and time zone)
        add("GET", "/v1/users/{user_id}/profile", .user([.pathUser("user_id")]), ProfileRoutes.show)
        add("PUT", "/v1/users/{user_id}/profile", .user([.pathUser("user_id")]), ProfileRoutes.replace)
        return router
    }
}

extension QuarantineRecord {
    /// " for input `dog:x`", or "" for a service-wide record (for log lines).
    var scopeText: String { inputKey.map { " for input `\($0)`" } ?? "" }

    var json: JSON {
        [
            "rule": .string(ruleID), "rule_digest": .string(ruleDigest), "reason": .string(reason),
            "input_digest": inputDigest.map(JSON.string) ?? .null, "input": inputKey.map(JSON.string) ?? .null,
            "detail": .string(detail),
            "quarantined_at": .string(Timestamp.format(quarantinedAt)),
        ]
    }
}
