import Core
import Engine
import Foundation
import Habits
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// Habit trackers end to end (Cases/habits.yaml): events in, statistics and days out.
struct HabitsTests {
    @Test(
        arguments: try CaseFile("habits.yaml").cases(
            keys: CaseKeys(
                expecting: ["stats", "day"], others: ["events"],
                parts: [
                    "events": CaseKeys(others: ["type", "at", "payload", "refused", "duplicate"]),
                    "day": CaseKeys(expecting: ["ids"], others: ["date", "filter"]),
                ])))
    func scenario(_ testCase: NamedCase) throws {
        let harness = try HabitsHarness()
        let name = testCase["name"]!.stringValue!
        for (index, event) in (testCase["events"]?.arrayValue ?? []).enumerated() {
            let result = harness.send(
                "u1", event["type"]!.stringValue!, event["payload"]?.objectValue ?? [:], at: event["at"]!.stringValue!)
            let refused = event["refused"]?.stringValue
            let repeated = event["duplicate"]?.stringValue
            if let refused {
                #expect(result.code == refused, "\(name), event \(index + 1): \(result.json)")
            } else if let repeated {
                #expect(
                    result.status == .duplicate && result.code == repeated && result.effects.isEmpty,
                    "\(name), event \(index + 1): \(result.json)")
            } else {
                #expect(result.status == .accepted, "\(name), event \(index + 1): \(result.json)")
            }
        }
        let stats = try HabitStatistics.json(user: "u1", store: harness.store, evaluator: harness.evaluator)
        for (key, want) in testCase["stats"]?.objectValue ?? [:] {
            #expect(
                stats[key] == want,
                "\(name): \(key) is \(stats[key]?.compactText ?? "missing"), want \(want.compactText)")
        }
        if let day = testCase["day"] {
            let view = try HabitDay.json(
                user: "u1", date: CivilDate(day["date"]!.stringValue!)!,
                filter: HabitDay.Filter(rawValue: day["filter"]!.stringValue!)!, store: harness.store,
                texts: harness.texts("ru"))
            let ids = view["trackers"]?.arrayValue?.map { $0["id"] ?? .null } ?? []
            #expect(JSON.array(ids) == day["ids"], "\(name): day \(view.compactText)")
        }
    }

    /// A check-in resent under its own event id gets its original answer, not "already
    /// checked": the stored event wins over what the consumer would refuse it for now.
    @Test func aResentCheckInIsAnsweredAsFirst() throws {
        let harness = try HabitsHarness()
        let at = "2026-11-01T08:00:00Z"
        harness.send("u1", "category_created", ["category_id": "health", "name": "Health"], at: at)
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "walk", "name": "Walk", "schedule": ["sun"], "category": "health", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: at)
        let checkIn: JSON = [
            "event_id": "walked", "user_id": "u1", "type": "habit_checked", "occurred_at": .string(at),
            "payload": ["tracker_id": "walk"],
        ]
        let first = harness.ingestor.ingest([checkIn])[0]
        #expect(first.status == .accepted, "\(first.json)")
        for batch in [[checkIn], [checkIn, checkIn]] {
            for again in harness.ingestor.ingest(batch) {
                #expect(again.status == .duplicate && again.code == nil, "\(again.json)")
                #expect(again.effects == first.effects)
            }
        }
    }

    /// Each refusal names the field and what fits.
    @Test func refusalsSayWhatIsWrong() throws {
        let harness = try HabitsHarness()
        let at = "2026-11-01T08:00:00Z"
        let long = harness.send(
            "u1", "tracker_created",
            ["tracker_id": "b", "name": .string(String(repeating: "x", count: 39)), "schedule": ["mon"]],
            at: at)
        #expect(long.message == "`payload.name` is 39 characters long; at most 38 fit")
        let day = harness.send(
            "u1", "tracker_created", ["tracker_id": "d", "name": "D", "schedule": ["monday"]], at: at)
        #expect(day.message == "`payload.schedule` has \"monday\"; weekdays are mon, tue, wed, thu, fri, sat, sun")
        let unknown = harness.send(
            "u1", "tracker_created", ["tracker_id": "i", "name": "I", "schedule": ["mon"], "colour": "#ffffff"], at: at)
        #expect(unknown.message?.hasPrefix("unknown field `payload.colour` for tracker_created; fields:") == true)
        harness.send("u1", "category_created", ["category_id": "health", "name": "Health"], at: at)
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "walk", "name": "Walk", "schedule": ["mon"], "category": "health", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: at)
        let future = harness.send(
            "u1", "habit_checked", ["tracker_id": "walk", "date": "2026-11-02"], at: "2026-11-01T23:59:59+00:00")
        #expect(
            future.message?.hasPrefix(
                "2026-11-02 has not begun for the user (it is 2026-11-01 where the event was sent)") == true)
    }

    static let trackerIDs: [(String, String?)] = [
        ("walk", nil),
        (String(repeating: "é", count: 64), nil),
        (String(repeating: "é", count: 65), "`payload.tracker_id` must have 1 to 128 bytes, got 130"),
        ("", "`payload.tracker_id` must have 1 to 128 bytes, got 0"),
        ("walk\u{7F}", "`payload.tracker_id` must not contain control characters"),
        ("walk\u{85}", "`payload.tracker_id` must not contain control characters"),
    ]

    /// Payload ids follow the one identifier rule: bytes, not characters; no control character.
    @Test(arguments: trackerIDs)
    func trackerIDsFollowTheOneIdentifierRule(_ id: String, _ refusal: String?) throws {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "general", "name": "General"], at: "2026-11-01T08:00:00Z")
        let result = harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": .string(id), "name": "Walk", "schedule": ["mon"], "category": "general", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: "2026-11-01T08:00:00Z")
        if let refusal {
            #expect(result.code == "invalid" && result.message == refusal, "\(result.json)")
        } else {
            #expect(result.status == .accepted, "\(result.json)")
        }
    }

    /// A name is counted in characters as people see them: 38 emoji fit.
    @Test func namesCountCharactersNotBytes() throws {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "general", "name": "General"], at: "2026-11-01T08:00:00Z")
        let name = String(repeating: "🐕", count: 38)
        let result = harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "dogs", "name": .string(name), "schedule": ["mon"], "category": "general", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: "2026-11-01T08:00:00Z")
        #expect(result.status == .accepted, "\(result.json)")
    }

    /// Deleting a tracker removes its schedules and check-ins from the store, not only from views.
    @Test func deletingATrackerLeavesNoRows() throws {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "general", "name": "General"], at: "2026-11-02T08:00:00Z")
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "walk", "name": "Walk", "schedule": ["mon", "tue"], "category": "general", "emoji": "⭐",
                "color": "#3366FF",
            ],
            at: "2026-11-02T08:00:00Z")
        harness.send("u1", "tracker_updated", ["tracker_id": "walk", "schedule": ["mon"]], at: "2026-11-03T08:00:00Z")
        harness.send("u1", "habit_checked", ["tracker_id": "walk"], at: "2026-11-02T20:00:00Z")
        #expect(try harness.store.connection.scalar("SELECT count(*) FROM habit_schedules") == 2)
        harness.send("u1", "tracker_deleted", ["tracker_id": "walk"], at: "2026-11-04T08:00:00Z")
        for table in ["habit_trackers", "habit_schedules", "habit_checkins"] {
            #expect(try harness.store.connection.scalar("SELECT count(*) FROM \(table)") == 0, "\(table)")
        }
    }

    @Test(arguments: [
        ("2026-01-01", "thu"), ("2026-11-29", "sun"), ("2028-02-29", "tue"), ("2000-03-01", "wed"),
        ("1969-12-31", "wed"),
    ])
    func civilDates(_ text: String, _ weekday: String) throws {
        let date = try #require(CivilDate(text))
        #expect(date.description == text)
        #expect(date.weekday == weekday)
        #expect(date.adding(days: 1).adding(days: -1) == date)
    }

    @Test(arguments: [
        "2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-32", "2026/01/01", "",
    ])
    func notDates(_ text: String) {
        #expect(CivilDate(text) == nil)
    }

    /// A tracker created without its category is refused in words for its kind.
    @Test(arguments: [
        (
            ["schedule": ["mon"]] as JSONObject,
            "`payload.category` is required for tracker_created: a habit is created with every section filled: `category`, `emoji` and `color` (and `schedule`)"
        ),
        (
            ["kind": "irregular"] as JSONObject,
            "`payload.category` is required for tracker_created: an irregular event is created with every section filled: `category`, `emoji` and `color`"
        ),
    ])
    func aTrackerWithoutItsCategoryIsRefusedInWordsForItsKind(_ kind: JSONObject, _ message: String) throws {
        let harness = try HabitsHarness()
        var payload: JSONObject = ["tracker_id": "t", "name": "T", "emoji": "⭐", "color": "#3366FF"]
        for (key, value) in kind { payload[key] = value }
        let result = harness.send("u1", "tracker_created", payload, at: "2026-11-29T08:00:00Z")
        #expect(result.status == .rejected && result.message == message)
    }
}
