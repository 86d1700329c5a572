import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The challenges document (seed 003) through the API alone, with users' bearer tokens, on a
/// running `journey serve` (its solo and head-to-head challenges opened around now): the list
/// of challenges, joining, progress from events (a resend counts once), the challenge screen
/// with its feed and ranking, the share card, completion with XP, badge and "join the next
/// one", and the head-to-head's notices of the opponent's progress and of overtaking.
@Suite struct LiveChallengesDocumentTests {
    /// The service with tokens, `opening` open whatever the date the test runs on.
    static func service(opening: [String] = ["walk-50k", "steps-duel"]) throws -> LiveService {
        try LiveService(
            workers: 1, arguments: ["--jwt-secret-file", "jwt.secret", "--admin-token-file", "credentials"], seed: false
        ) { folder in
            try AuthFixture.secretText.write(toFile: folder + "/jwt.secret", atomically: true, encoding: .utf8)
            try AuthFixture.credentials.write(toFile: folder + "/credentials", atomically: true, encoding: .utf8)
            // Open whatever the date the test runs on: walk-50k's end is a parameter, set as a
            // product manager sets it; the other dates are written in the challenges.
            for name in opening {
                let path = folder + "/Rules/challenges/\(name).yaml"
                let text = try String(contentsOfFile: path, encoding: .utf8)
                    .replacing(#/\nstarts_at: .*/#, with: "\nstarts_at: 2020-01-01T00:00:00Z")
                    .replacing(#/\nends_at: [0-9].*/#, with: "\nends_at: 2099-12-31T23:59:59Z")
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            try "values:\n  walk-50k:\n    ends_at: \"2099-12-31T23:59:59Z\"\n".write(
                toFile: folder + "/Rules/params.yaml", atomically: true, encoding: .utf8)
        }
    }

    /// What a reader in one locale reads (issue 41; issue 42: names and numbers per locale).
    struct Reader: Sendable, CustomTestStringConvertible {
        var locale: String
        var title: String
        var target: String
        var share: String
        var celebration: String
        var joinNext: String
        var badge: String
        var ownFeedLine: String
        var opponentProgress: String
        var overtaken: String
        var blue: String
        var testDescription: String { locale }
    }

    static let readers = [
        Reader(
            locale: "ru", title: "Пройти 50 км с собакой", target: "50 км",
            share: "20 из 50 км в «Пройти 50 км с собакой» · 40%", celebration: "Получилось: «Пройти 50 км с собакой»!",
            joinNext: "Присоединиться к следующему челленджу: «", badge: "50 км с собакой", ownFeedLine: "Вы: +20 км",
            opponentProgress: "Красные: 5\u{00A0}000 из 150\u{00A0}000 шагов в «Дуэль шагов». У вас 0 шагов",
            overtaken: "Синие обгоняют вас в «Дуэль шагов»", blue: "Синие"),
        Reader(
            locale: "en", title: "Walk 50 km with your dog", target: "50 km",
            share: "20 of 50 km in Walk 50 km with your dog · 40%",
            celebration: "You did it: Walk 50 km with your dog!",
            joinNext: "Join the next one: ", badge: "50 km with your dog", ownFeedLine: "You: +20 km",
            opponentProgress: "Red: 5,000 of 150,000 steps in Steps duel. You: 0 steps",
            overtaken: "Blue overtook you in Steps duel", blue: "Blue"),
    ]

    @Test(arguments: readers)
    func everyScreenOfAChallenge(_ reader: Reader) throws {
        let service = try Self.service()
        defer { service.stop() }
        let ann = App(service: service, token: AuthFixture.token("ann"))
        let ben = App(service: service, token: AuthFixture.token("ben"))
        for (app, user) in [(ann, "ann"), (ben, "ben")] {
            let (status, body) = try app.json("PUT", "/v1/users/\(user)/profile", ["locale": .string(reader.locale)])
            #expect(status == 200, "\(body)")
        }
        let now = Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60)
        func event(_ id: String, _ user: String, _ type: String, _ payload: JSON) -> JSON {
            [
                "event_id": .string(id), "user_id": .string(user), "type": .string(type), "occurred_at": .string(now),
                "payload": payload,
            ]
        }

        // The list: cards with progress, deadline and participants.
        let (listed, list) = try ann.json("GET", "/v1/challenges?user_id=ann")
        #expect(listed == 200, "\(list)")
        #expect(list.compactText.contains("walk-50k") && list.compactText.contains("steps-duel"))

        // Joining, then progress from events; a resend is a duplicate and counts once.
        let joined = try ann.json("POST", "/v1/challenges/walk-50k/join", ["user_id": "ann"])
        #expect(joined.0 == 201)
        // CH-12: the app subscribes to the challenge's FCM topic at join.
        #expect(joined.1["push"]?["topic"] == "challenge-walk-50k", "\(joined.1)")
        let walk = event("ann-walk-1", "ann", "walk_completed", ["distance_km": 20])
        #expect(try ann.json("POST", "/v1/events", ["events": [walk]]).1["accepted"] == 1)
        #expect(try ann.json("POST", "/v1/events", ["events": [walk]]).1["duplicates"] == 1)
        let (_, screen) = try ann.json("GET", "/v1/challenges/walk-50k?user_id=ann")
        #expect(screen["me"]?["current_value"] == 20, "\(screen)")
        #expect(screen["participants"] == 1 && screen["topic"] == "challenge-walk-50k")
        #expect(screen["title"] == .string(reader.title) && screen["target_text"] == .string(reader.target))
        #expect(screen["unit"] == "km" && screen["locale"] == .string(reader.locale), "\(screen)")
        let (_, feed) = try ann.json("GET", "/v1/challenges/walk-50k/feed?limit=5")
        #expect(feed["feed"]?.arrayValue?.contains { $0["verb"] == "progress" && $0["value"] == 20 } == true)
        #expect(feed["feed"]?.arrayValue?.contains { $0["text"] == .string(reader.ownFeedLine) } == true, "\(feed)")
        let (_, share) = try ann.json("GET", "/v1/challenges/walk-50k/share?user_id=ann")
        #expect(share["title"] == .string(reader.title) && share["value"] == 20 && share["percent"] == 40)
        #expect(share["rank"] == 1 && share["deadline"] == "2099-12-31T23:59:59Z")
        #expect(share["text"]?.stringValue?.hasPrefix(reader.share) == true, "\(share)")

        // Completion: the celebration with the next challenge, XP and the badge.
        let (_, done) = try ann.json(
            "POST", "/v1/events", ["events": [event("ann-walk-2", "ann", "walk_completed", ["distance_km": 30])]])
        let effects = done["results"]?[0]?["effects"]?.arrayValue ?? []
        #expect(effects.contains { $0["type"] == "challenge_completed" }, "\(done)")
        #expect(effects.contains { $0["type"] == "reminder_scheduled" && $0["kind"] == "challenge_completed:walk-50k" })
        // The push is written when the sender reads it, in its recipient's locale.
        let pusher = App(service: service, token: AuthFixture.pusherToken)
        func due(_ user: String) throws -> [JSON] {
            let (_, due) = try pusher.json("GET", "/v1/reminders/due?before=2100-01-01T00:00:00Z&limit=100")
            return (due["reminders"]?.arrayValue ?? []).filter { $0["user_id"] == .string(user) }
        }
        let celebration = try due("ann").first { $0["kind"] == "challenge_completed:walk-50k" }
        #expect(celebration?["payload"]?["text"] == .string(reader.celebration), "\(celebration ?? .null)")
        #expect(celebration?["locale"] == .string(reader.locale))
        #expect(
            celebration?["payload"]?["next_challenge"]?["text"]?.stringValue?.hasPrefix(reader.joinNext) == true)
        let (_, rewards) = try ann.json("GET", "/v1/users/ann/rewards")
        #expect(rewards["xp"] == 150, "\(rewards)")
        #expect(
            rewards["badges"]?[0]?["badge_id"] == "walker-50k" && rewards["badges"]?[0]?["challenge_id"] == "walk-50k")
        // Issue 42: a badge has its title and image, not a bare id.
        #expect(rewards["badges"]?[0]?["title"] == .string(reader.badge), "\(rewards)")
        #expect(rewards["badges"]?[0]?["image"] == "badges/walker-50k.png")

        // Head-to-head: two sides; the other side hears of the opponent's progress, then of overtaking.
        #expect(try ann.json("POST", "/v1/challenges/steps-duel/join", ["user_id": "ann", "team_id": "red"]).0 == 201)
        #expect(try ben.json("POST", "/v1/challenges/steps-duel/join", ["user_id": "ben", "team_id": "blue"]).0 == 201)
        _ = try ann.json("POST", "/v1/events", ["events": [event("ann-steps", "ann", "steps_logged", ["steps": 5000])]])
        func notices(_ user: String) throws -> [String] {
            try due(user).compactMap { $0["payload"]?["text"]?.stringValue }
        }
        // Issue 42: the side's name, never its id; numbers in the locale's digits, with the unit.
        let benHears = try notices("ben")
        #expect(benHears.contains(reader.opponentProgress), "\(benHears)")
        _ = try ben.json("POST", "/v1/events", ["events": [event("ben-steps", "ben", "steps_logged", ["steps": 6000])]])
        let annHears = try notices("ann")
        #expect(annHears.contains(reader.overtaken), "\(annHears)")
        let (_, ranking) = try ben.json("GET", "/v1/challenges/steps-duel/ranking")
        #expect(ranking["ranking"]?[0]?["team_id"] == "blue", "\(ranking)")
        #expect(ranking["ranking"]?[0]?["team_name"] == .string(reader.blue), "\(ranking)")

        // Another user's events are not ben's to send.
        #expect(
            try ben.json("POST", "/v1/events", ["events": [event("x", "ann", "walk_completed", ["distance_km": 1])]]).0
                == 403)
    }
}
