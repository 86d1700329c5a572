import Core
import FeatureKit
import HTTP
import JQ
import RuleEngine
import Store

extension JourneyService {
    typealias Handler = @Sendable (JourneyService, HTTPRequest, RouteParameters) throws(APIError) -> HTTPResponse

    /// The API's routes: the engine's own, and every feature's (``ServiceMetrics`` counts them by
    /// their index: keep the order stable).
    static func makeRouter(features: FeatureSet) -> Router<JourneyService> {
        var router = Router<JourneyService>()
        func add(_ method: String, _ pattern: String, admin: Bool = false, _ handler: @escaping Handler) {
            router.add(method, pattern) { service, request, parameters in
                if admin, let refusal = AdminAuth.refusal(request, credentials: service.adminCredentials) {
                    return refusal.response
                }
                do throws(APIError) {
                    return try handler(service, request, RouteParameters(parameters))
                } catch {
                    return error.response
                }
            }
        }
        // Operations
        add("GET", "/healthz", Operations.health)
        add("GET", "/readyz", Operations.ready)
        add("GET", "/metrics", Operations.metrics)
        add("GET", "/openapi.json", Operations.openAPI)
        // Events
        add("POST", "/v1/events", EventRoutes.ingest)
        // Every feature's routes
        for route in features.routes {
            let handler = route.handler
            add(route.method, route.pattern, admin: route.admin) { service, request, parameters throws(APIError) in
                try handler(service, request, parameters)
            }
        }
        // Reminders
        add("GET", "/v1/reminders/due", ReminderRoutes.due)
        add("POST", "/v1/reminders/sent", ReminderRoutes.sent)
        // Admin
        add("GET", "/v1/rules", admin: true, AdminRoutes.rules)
        add("POST", "/v1/rules/reload", admin: true, AdminRoutes.reload)
        add("POST", "/v1/rules/{rule}/evaluate", admin: true, AdminRoutes.evaluate)
        add("DELETE", "/v1/rules/{rule}/quarantine", admin: true, AdminRoutes.liftQuarantine)
        add("POST", "/v1/eval", admin: true, AdminRoutes.eval)
        return router
    }
}

extension QuarantineRecord {
    var json: JSON {
        [
            "rule": .string(ruleID), "rule_digest": .string(ruleDigest), "reason": .string(reason),
            "input_digest": inputDigest.map(JSON.string) ?? .null, "detail": .string(detail),
            "quarantined_at": .string(Timestamp.format(quarantinedAt)),
        ]
    }
}
