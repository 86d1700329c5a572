import Core
import HTTP
import JQ
import RuleEngine
import Store

extension JourneyService {
    typealias Handler = @Sendable (JourneyService, HTTPRequest, [String: String]) throws(APIError) -> HTTPResponse

    /// The API's routes (``ServiceMetrics`` counts them by their index: keep the order stable).
    static func makeRouter() -> Router<JourneyService> {
        var router = Router<JourneyService>()
        func add(_ method: String, _ pattern: String, admin: Bool = false, _ handler: @escaping Handler) {
            router.add(method, pattern) { service, request, parameters in
                if admin, let refusal = AdminAuth.refusal(request, token: service.configuration.adminToken) {
                    return refusal.response
                }
                do throws(APIError) {
                    return try handler(service, request, parameters)
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
        // Events and dogs
        add("POST", "/v1/events", EventRoutes.ingest)
        add("POST", "/v1/dogs", DogRoutes.register)
        add("GET", "/v1/dogs/{dog}/today", DogRoutes.today)
        add("GET", "/v1/dogs/{dog}/journey", DogRoutes.journey)
        add("GET", "/v1/dogs/{dog}/branches/{branch}", DogRoutes.branch)
        add("GET", "/v1/dogs/{dog}/blocks/{block}/preview", DogRoutes.preview)
        add("GET", "/v1/dogs/{dog}/map", DogRoutes.map)
        for step in BlockStepRoute.allCases {
            add("POST", "/v1/dogs/{dog}/blocks/{block}/\(step.rawValue)") {
                service, request, parameters throws(APIError) in
                try DogRoutes.blockStep(step, service, request, parameters)
            }
        }
        // Onboarding
        add("GET", "/v1/users/{user}/onboarding", OnboardingRoutes.show)
        add("POST", "/v1/users/{user}/onboarding/skip", OnboardingRoutes.skip)
        // Habit trackers
        add("GET", "/v1/users/{user}/habits/trackers", HabitRoutes.trackers)
        add("GET", "/v1/users/{user}/habits/day", HabitRoutes.day)
        add("GET", "/v1/users/{user}/habits/stats", HabitRoutes.stats)
        add("POST", "/v1/users/{user}/habits/checkins", HabitRoutes.check)
        // Challenges
        add("GET", "/v1/challenges", ChallengeRoutes.list)
        add("GET", "/v1/challenges/{challenge}", ChallengeRoutes.show)
        add("GET", "/v1/challenges/{challenge}/feed", ChallengeRoutes.feed)
        add("GET", "/v1/challenges/{challenge}/ranking", ChallengeRoutes.ranking)
        add("POST", "/v1/challenges/{challenge}/join", ChallengeRoutes.join)
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

    /// The HTTP status of a refused event, by its code.
    static func status(ofRejection code: String?) -> Int {
        switch code {
        case "unknown_dog": 404
        case "unknown_tracker", "unknown_category", "unknown_challenge": 404
        case "conflict", "not_skippable", "not_current", "not_in_progress", "category_in_use", "challenge_full",
            "challenge_ended", "challenge_inactive":
            409
        case "storage_error": 503
        default: 422
        }
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
