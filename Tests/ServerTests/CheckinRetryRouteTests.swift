import Core
import Foundation
import Testing

/// The audit's reproduction through the check-in route: without `event_id` each request gets
/// a fresh id, and five retries of one check-in made a ranking value of 5.
struct CheckinRetryRouteTests {
    @Test func fiveRetriedCheckinsCountOnceInTheRanking() throws {
        let harness = try ServiceHarness(seed: false)
        let category: JSON = [
            "event_id": "c1", "user_id": "bu5", "type": "category_created", "occurred_at": "2026-11-29T08:00:00Z",
            "payload": ["category_id": "dog", "name": "Dog"],
        ]
        let tracker: JSON = [
            "event_id": "t1", "user_id": "bu5", "type": "tracker_created", "occurred_at": "2026-11-29T08:00:00Z",
            "payload": [
                "tracker_id": "walk", "name": "Walk", "schedule": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
                "category": "dog", "emoji": "🐕", "color": "#3366FF",
            ],
        ]
        #expect(harness.send("POST", "/v1/events", json: ["events": [category, tracker]]).status == 200)
        let joined = harness.send("POST", "/v1/challenges/habit-streak/join", json: ["user_id": "bu5"])
        #expect(joined.status == 201, "\(joined.text)")
        var statuses: [String] = []
        for _ in 0..<5 {
            let response = harness.send(
                "POST", "/v1/users/bu5/habits/checkins", json: ["tracker_id": "walk", "date": "2026-11-29"])
            #expect(response.status == 200, "\(response.text)")
            statuses.append(response.json["status"]?.stringValue ?? response.text)
        }
        #expect(statuses == ["accepted", "duplicate", "duplicate", "duplicate", "duplicate"])
        let ranking = harness.send("GET", "/v1/challenges/habit-streak/ranking")
        #expect(ranking.json["ranking"]?[0]?["value"] == 1, "\(ranking.text)")
        let ancient = harness.send(
            "POST", "/v1/users/bu5/habits/checkins", json: ["tracker_id": "walk", "date": "1900-01-01"])
        #expect(ancient.status == 422 && ancient.json["code"] == "before_tracker_created", "\(ancient.text)")
    }
}
