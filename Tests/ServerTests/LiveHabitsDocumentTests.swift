import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The habit tracker document (seed 002) through the API alone, with a user's bearer token, on
/// a running `journey serve`: categories, creating trackers (only with every section filled),
/// the main screen's day with its filters, search, sections and tracked days, pinning, the
/// statistics, and deleting a tracker and a category with their data.
///
/// It runs for a Russian user (by their profile) and an English one (by `Accept-Language`),
/// and asserts the document's own Russian texts: «Трекеры», «Каждый день», «Закрепленные»,
/// «Статистика», «Лучший период», «Идеальные дни», «Трекеров завершено», «Среднее значение».
@Suite struct LiveHabitsDocumentTests {
    struct Reader: Sendable, CustomTestStringConvertible {
        var profile: String?
        var acceptLanguage: String?
        var trackers: String
        var everyDay: String
        var oneDay: String
        var pinned: String
        var statistics: String
        var titles: JSON
        var testDescription: String { profile ?? acceptLanguage ?? "" }
    }

    static let readers = [
        Reader(
            profile: "ru", acceptLanguage: "en-US,en;q=0.9", trackers: "Трекеры", everyDay: "Каждый день",
            oneDay: "1 день", pinned: "Закрепленные", statistics: "Статистика",
            titles: [
                "best_period": "Лучший период", "perfect_days": "Идеальные дни",
                "trackers_completed": "Трекеров завершено", "average": "Среднее значение",
            ]),
        Reader(
            profile: nil, acceptLanguage: "en-GB,en;q=0.9", trackers: "Trackers", everyDay: "Every day",
            oneDay: "1 day", pinned: "Pinned", statistics: "Statistics",
            titles: [
                "best_period": "Best period", "perfect_days": "Perfect days",
                "trackers_completed": "Trackers completed", "average": "Average",
            ]),
    ]

    @Test(arguments: readers)
    func everyScreenOfTheHabitTracker(_ reader: Reader) throws {
        let service = try LiveService.withTokens()
        defer { service.stop() }
        let app = App(service: service, token: AuthFixture.token("hana"), acceptLanguage: reader.acceptLanguage)
        if let locale = reader.profile {
            let (status, profile) = try app.json("PUT", "/v1/users/hana/profile", ["locale": .string(locale)])
            #expect(status == 200, "\(profile)")
        }
        let now = Date().timeIntervalSince1970
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
        let today = weekdays[utc.component(.weekday, from: Date(timeIntervalSince1970: now)) - 1]
        let otherDay = weekdays.first { $0 != today }!
        var counter = 0
        func event(_ type: String, _ payload: JSON) -> JSON {
            counter += 1
            return [
                "event_id": .string("hana-\(counter)"), "user_id": "hana", "type": .string(type),
                "occurred_at": .string(Timestamp.format(now.rounded(.down))), "payload": payload,
            ]
        }
        func send(_ events: [JSON]) throws -> JSON {
            let (status, body) = try app.json("POST", "/v1/events", ["events": .array(events)])
            #expect(status == 200, "\(body)")
            return body
        }

        // Categories, then "Create" only once every section is filled.
        let categories = try send([
            event("category_created", ["category_id": "home", "name": "Home"]),
            event("category_created", ["category_id": "sport", "name": "Sport"]),
        ])
        #expect(categories["accepted"] == 2)
        let unfinished = try send([
            event(
                "tracker_created",
                ["tracker_id": "tea", "name": "Tea", "schedule": ["mon"], "category": "home", "color": "#3366FF"])
        ])
        #expect(unfinished["results"]?[0]?["message"]?.stringValue?.hasPrefix("`payload.emoji` is required") == true)
        let created = try send([
            event(
                "tracker_created",
                [
                    "tracker_id": "run", "name": "Run", "schedule": .array(weekdays.map(JSON.string)),
                    "category": "sport", "emoji": "🏃", "color": "#FF8800",
                ]),
            event(
                "tracker_created",
                [
                    "tracker_id": "vet", "name": "Vet visit", "kind": "irregular", "category": "home", "emoji": "🩺",
                    "color": "#3366FF",
                ]),
            event(
                "tracker_created",
                [
                    "tracker_id": "yoga", "name": "Yoga", "schedule": [.string(otherDay)], "category": "sport",
                    "emoji": "🧘", "color": "#33AA55",
                ]),
        ])
        #expect(created["accepted"] == 3, "\(created)")
        let (_, trackers) = try app.json("GET", "/v1/users/hana/habits/trackers")
        #expect(trackers["trackers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["run", "vet", "yoga"])
        #expect(trackers["categories"]?.arrayValue?.count == 2)
        #expect(trackers["trackers"]?[0]?["schedule_text"] == .string(reader.everyDay))

        // The main screen: checking a tracker, the day with its filters and sections.
        let (checked, _) = try app.json("POST", "/v1/users/hana/habits/checkins", ["tracker_id": "run"])
        #expect(checked == 200)
        func ids(_ query: String) throws -> [String] {
            let (status, day) = try app.json("GET", "/v1/users/hana/habits/day\(query)")
            #expect(status == 200, "\(day)")
            return day["trackers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(try ids("") == ["run", "vet"], "all: the day's trackers, not yoga on \(otherDay)")
        #expect(try ids("?filter=completed") == ["run"])
        #expect(try ids("?filter=not_completed") == ["vet"])
        #expect(try ids("?filter=today&date=2020-01-01") == ["run", "vet"], "today sets the current date")
        #expect(try ids("?q=VET") == ["vet"])
        let (_, day) = try app.json("GET", "/v1/users/hana/habits/day")
        #expect(day["filters_available"] == true)
        #expect(day["trackers"]?[0]?["tracked_days"] == 1)
        #expect(day["trackers"]?[0]?["emoji"] == "🏃")
        #expect(
            day["title"] == .string(reader.trackers)
                && day["trackers"]?[0]?["schedule_text"] == .string(reader.everyDay))
        #expect(day["trackers"]?[0]?["tracked_days_text"] == .string(reader.oneDay))

        // Pinning puts the card in "Pinned" on top.
        #expect(try send([event("tracker_updated", ["tracker_id": "vet", "pinned": true])])["accepted"] == 1)
        let (_, pinned) = try app.json("GET", "/v1/users/hana/habits/day")
        #expect(
            pinned["groups"]?[0] == [
                "pinned": true, "category_id": .null, "category_name": .null, "title": .string(reader.pinned),
                "tracker_ids": ["vet"],
            ])
        #expect(pinned["groups"]?[1]?["category_name"] == "Sport")
        #expect(pinned["groups"]?[1]?["title"] == "Sport")

        // Statistics.
        let (_, stats) = try app.json("GET", "/v1/users/hana/habits/stats")
        #expect(stats["has_data"] == true && stats["trackers_completed"] == 1, "\(stats)")
        #expect(stats["title"] == .string(reader.statistics) && stats["titles"] == reader.titles, "\(stats)")

        // Deleting a tracker: its data goes. Deleting a category: its name goes, its trackers stay.
        #expect(try send([event("tracker_deleted", ["tracker_id": "run"])])["accepted"] == 1)
        #expect(try app.json("GET", "/v1/users/hana/habits/stats").1["has_data"] == false)
        #expect(try send([event("category_deleted", ["category_id": "home"])])["accepted"] == 1)
        let (_, left) = try app.json("GET", "/v1/users/hana/habits/trackers")
        #expect(left["trackers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["vet", "yoga"])
        #expect(left["trackers"]?[0]?["category_id"] == .null)

        // Another user's token reads nothing of it.
        let (status, _) = try App(service: service, token: AuthFixture.token("ivo")).json(
            "GET", "/v1/users/hana/habits/trackers")
        #expect(status == 403)
    }
}

/// The app: requests with a user's bearer token.
struct App {
    let service: LiveService
    let token: String
    /// The phone's languages, sent as `Accept-Language` when given.
    var acceptLanguage: String? = nil

    func json(_ method: String, _ target: String, _ body: JSON? = nil) throws -> (Int, JSON) {
        var headers = ["Content-Type": "application/json", "Authorization": "Bearer \(token)"]
        if let acceptLanguage { headers["Accept-Language"] = acceptLanguage }
        let response = try service.client().send(
            method, target, headers: headers, body: body.map { Array($0.compactText.utf8) })
        return (response.status, (try? JSONParser().parse(response.body)) ?? .null)
    }
}
