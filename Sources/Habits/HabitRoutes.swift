import Core
import Engine
import FeatureKit
import Foundation
import HTTP
import JQ
import RuleEngine
import Store

/// A user's habit trackers: the trackers, one day, the statistics, and checking a tracker.
/// Tracker and category changes arrive as events (`POST /v1/events`).
enum HabitRoutes {
    /// `GET /v1/users/{user_id}/habits/trackers`: every tracker with its schedule, and the categories.
    static func trackers(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        let zone = try UserTimeZone.resolve(user: user, requested: request.query("timezone"), store: service.store)
        let texts = service.texts(for: request, user: user)
        do {
            let today = zone.date(service.now()).description
            let trackers = try service.store.habitTrackers(user: user)
            let categories = try service.store.habitCategories(user: user)
            let trackedDays = HabitDay.trackedDays(try service.store.habitCheckins(user: user))
            return .json([
                "user_id": .string(user),
                "trackers": .array(
                    trackers.map { tracker in
                        .object([
                            "id": .string(tracker.id), "name": .string(tracker.name),
                            "kind": .string(tracker.kind.rawValue),
                            "category_id": tracker.categoryID.map(JSON.string) ?? .null,
                            "category_name": tracker.categoryID.flatMap { id in
                                categories.first { $0.id == id }.map { .string($0.name) }
                            } ?? .null,
                            "emoji": tracker.emoji.map(JSON.string) ?? .null,
                            "color": tracker.color.map(JSON.string) ?? .null, "pinned": .bool(tracker.pinned),
                            "schedule": .array((tracker.schedules.last?.days ?? []).map(JSON.string)),
                            "schedule_text": .string(HabitDay.scheduleText(tracker, on: today, texts: texts)),
                            "created_on": .string(tracker.createdOn),
                            "tracked_days": .number(Double(trackedDays[tracker.id] ?? 0)),
                        ])
                    }),
                "categories": .array(categories.map { .object(["id": .string($0.id), "name": .string($0.name)]) }),
                "locale": .string(texts.locale),
            ])
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `GET /v1/users/{user_id}/habits/day?date=&filter=&q=`: the trackers of one local date.
    static func day(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let zone = try UserTimeZone.resolve(
            user: try p.require("user_id"), requested: request.query("timezone"), store: service.store)
        var selected: CivilDate?
        if let text = request.query("date") {
            guard let parsed = CivilDate(text) else {
                throw APIError(
                    422, "invalid_request", "date must be a date written YYYY-MM-DD (got \(text.prefix(40)))",
                    errors: [["field": "date", "message": "not a date written YYYY-MM-DD"]])
            }
            selected = parsed
        }
        var filter = HabitDay.Filter.all
        if let text = request.query("filter") {
            guard let parsed = HabitDay.Filter(rawValue: text) else {
                let allowed = HabitDay.Filter.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError(
                    422, "invalid_request", "filter must be one of \(allowed) (got \(text.prefix(40)))",
                    errors: [["field": "filter", "message": .string("one of \(allowed)")]])
            }
            filter = parsed
        }
        // The user's today, in their time zone.
        let date = HabitDay.date(for: filter, selected: selected, today: zone.date(service.now()))
        let user = try p.require("user_id")
        do {
            return .json(
                try HabitDay.json(
                    user: user, date: date, filter: filter, search: request.query("q"), store: service.store,
                    texts: service.texts(for: request, user: user)))
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `GET /v1/users/{user_id}/habits/stats`: the statistics from the `habit_stat` rules.
    static func stats(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        do {
            // A failing statistic rule answers with its fallback or null (`degraded`), never 500.
            let stats = try HabitStatistics.json(user: user, store: service.store, evaluator: service.evaluator)
            return .json(HabitStatistics.titled(stats, texts: service.texts(for: request, user: user)))
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `POST /v1/users/{user_id}/habits/checkins` with `{tracker_id, date?, done?, event_id?,
    /// occurred_at?, timezone?}`: a `habit_checked` (or, with `done: false`, `habit_unchecked`)
    /// event; without `occurred_at` it happens now in the user's time zone.
    static func check(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        var fields = try RequestBody.fields(request)
        let tracker = (try? fields.identifier("tracker_id")) ?? ""
        let date = try? fields.optionalString("date")
        let done = (try? fields.optionalBool("done")) ?? true
        let eventID = try? fields.optionalIdentifier("event_id")
        let occurredAt = try? fields.optionalString("occurred_at")
        let requestedZone = try? fields.optionalString("timezone")
        try fields.check()
        // Without `occurred_at`, the check-in happens now in the user's time zone: its offset
        // decides the local date (a check-in at 22:19 in Honolulu is that day's).
        let zone =
            occurredAt == nil
            ? try UserTimeZone.resolve(user: user, requested: requestedZone, store: service.store) : nil
        var payload: JSONObject = ["tracker_id": .string(tracker)]
        if let date { payload["date"] = .string(date) }
        let event: JSONObject = [
            "event_id": .string(eventID ?? RouteEvents.newID()), "user_id": .string(user),
            "type": .string(done ? "habit_checked" : "habit_unchecked"),
            "occurred_at": .string(occurredAt ?? zone?.timestamp(service.now()) ?? Timestamp.format(service.now())),
            "payload": .object(payload),
        ]
        return service.respond(
            service.ingest([.object(event)])[0], to: request, fieldsFrom: [("/payload", "")], otherwise: "user_id")
    }
}
