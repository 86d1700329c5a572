import Core
import FeatureKit
import HTTP
import Store

/// The analytics outbox for the app's analytics pipeline (scope `analytics`): what is not
/// sent yet, oldest first, and marking it sent, so each event reaches the pipeline once.
enum AnalyticsRoutes {
    /// `GET /v1/analytics/pending?limit=&after_outbox_id=&since=` (the former `after` refused naming it).
    static func pending(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let limit = try OutboxQuery.limit(request)
        try request.refuseRenamedQuery("after", to: "after_outbox_id")
        var after: Int64?
        if let text = request.query("after_outbox_id") {
            guard let parsed = Int64(text), parsed >= 0 else {
                throw APIError(
                    422, "invalid_request", "after_outbox_id must be an outbox id, a whole number ≥ 0 (got \(text))",
                    errors: [
                        APIError.parameterEntry("after_outbox_id", .invalid, "not a whole number ≥ 0", in: "query")
                    ])
            }
            after = parsed
        }
        let since = try APIError.timeQuery(request, "since")
        return try APIError.answering {
            [
                "events": .array(
                    try service.store.pendingAnalytics(limit: limit, afterID: after, since: since).map(\.json))
            ]
        }
    }

    /// `POST /v1/analytics/sent` with `{ids}`.
    static func sent(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try OutboxQuery.markSent(request, what: "an analytics event id") { ids throws in
            try service.store.markAnalyticsSent(ids, at: service.configuration.clock())
        }
    }
}
