import Core
import FeatureKit
import HTTP
import JQ
import RuleEngine
import Store

/// Reminders for the app's push sender: what is due, and marking them sent.
enum ReminderRoutes {
    static func due(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var before = service.configuration.clock()
        if let text = request.query("before") {
            guard let parsed = Timestamp.parse(text) else {
                throw APIError(
                    422, "invalid_request", "before must be an RFC 3339 date-time with an offset (got \(text))",
                    errors: [["field": "before", "message": "not a date-time with an offset"]])
            }
            before = parsed
        }
        let limit = try OutboxQuery.limit(request)
        let reminders: [Reminder]
        do {
            reminders = try service.store.dueReminders(before: before, limit: limit)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        return .json([
            "before": .string(Timestamp.format(before)),
            "reminders": .array(
                reminders.map { reminder in
                    [
                        "id": .number(Double(reminder.id ?? 0)), "user_id": .string(reminder.userID),
                        "dog_id": reminder.dogID.map(JSON.string) ?? .null, "kind": .string(reminder.kind),
                        "due_at": .string(Timestamp.format(reminder.dueAt)), "payload": reminder.payload,
                    ]
                }),
        ])
    }

    static func sent(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try OutboxQuery.markSent(request, what: "a reminder id") { ids throws in
            try service.store.markRemindersSent(ids, at: service.configuration.clock())
        }
    }
}

/// What the routes that drain an outbox (reminders, analytics) share: `limit`, and marking
/// ids sent.
enum OutboxQuery {
    /// `?limit=` from 1 to 1000 (default 100).
    static func limit(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return 100 }
        guard let parsed = Int(text), (1...1000).contains(parsed) else {
            throw APIError(
                422, "invalid_request", "limit must be a whole number from 1 to 1000 (got \(text))",
                errors: [["field": "limit", "message": "not a whole number from 1 to 1000"]])
        }
        return parsed
    }

    /// `{ids: [...]}` (at most 1000 whole numbers ≥ 1; `what` names one) marked by `mark`, which returns those it
    /// marked: `{marked, ignored}` (ignored: unknown, or sent already).
    static func markSent(_ request: HTTPRequest, what: String, _ mark: ([Int64]) throws -> [Int64]) throws(APIError)
        -> HTTPResponse
    {
        var fields = Fields(try RequestBody.object(request))
        let items = fields.array("ids", required: true) ?? []
        var ids: [Int64] = []
        for (index, item) in items.enumerated() {
            guard case .number(let value) = item, value == value.rounded(), value >= 1, value < 9e15 else {
                fields.problem("ids[\(index)]", "must be \(what) (a whole number ≥ 1)")
                continue
            }
            ids.append(Int64(value))
        }
        if items.count > 1000 { fields.problem("ids", "at most 1000 ids at once") }
        try fields.check()
        let marked: [Int64]
        do {
            marked = try mark(ids)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        return .json([
            "marked": .array(marked.map { .number(Double($0)) }),
            "ignored": .array(Array(Set(ids).subtracting(marked)).sorted().map { .number(Double($0)) }),
        ])
    }
}
