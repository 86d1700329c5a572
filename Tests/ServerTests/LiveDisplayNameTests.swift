import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The name a user gives their profile is what other participants of a challenge read (issue
/// 42: the feed said «Участник» for everyone), over HTTP with bearer tokens: in the feed (its
/// `display_name` and its `text`), the ranking and the challenge screen, of a solo and of a
/// head-to-head challenge; only its user sets it; a refused name is a `422` naming the field and
/// changes nothing; null clears it.
@Suite struct LiveDisplayNameTests {
    /// A name the profile refuses, and the error it gets.
    struct Refused: Sendable, CustomTestStringConvertible {
        var name: JSON
        var code: String
        var message: String
        var testDescription: String { message }
    }

    static let refused: [Refused] = [
        Refused(name: "", code: "invalid", message: "must not be blank"),
        Refused(name: " \t\n ", code: "invalid", message: "must not be blank"),
        Refused(
            name: .string(String(repeating: "Я", count: 41)), code: "too_long",
            message: "must be at most 40 characters, got 41"),
        Refused(name: "Анна\u{202E}5+", code: "invalid", message: "must not contain bidi controls (U+202E)"),
        Refused(name: "\u{202D}Анна", code: "invalid", message: "must not contain bidi controls (U+202D)"),
        Refused(name: "Ann\u{0000}", code: "invalid", message: "must not contain control characters (U+0000)"),
        Refused(name: "Ann\u{009B}", code: "invalid", message: "must not contain control characters (U+009B)"),
        Refused(name: "Ann\rLee", code: "invalid", message: "must not contain control characters (U+000D)"),
        Refused(name: "Ann\u{FEFF}", code: "invalid", message: "must not contain invisible format characters (U+FEFF)"),
        Refused(
            name: "\u{E000}", code: "invalid",
            message: "must not contain private-use or unassigned code points (U+E000)"),
        Refused(name: ["Анна"], code: "wrong_type", message: "must be a string or null, got array"),
    ]

    @Test func othersReadTheNameTheUserGave() throws {
        let service = try LiveChallengesDocumentTests.service()
        defer { service.stop() }
        let ann = App(service: service, token: AuthFixture.token("ann"))
        let ben = App(service: service, token: AuthFixture.token("ben"))
        let now = Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60)
        for (app, user) in [(ann, "ann"), (ben, "ben")] {
            #expect(try app.json("PUT", "/v1/users/\(user)/profile", ["locale": "ru"]).0 == 200)
            #expect(try app.json("POST", "/v1/challenges/walk-50k/join", ["user_id": .string(user)]).0 == 201)
        }
        #expect(try ann.json("POST", "/v1/challenges/steps-duel/join", ["user_id": "ann", "team_id": "red"]).0 == 201)
        #expect(try ben.json("POST", "/v1/challenges/steps-duel/join", ["user_id": "ben", "team_id": "blue"]).0 == 201)

        // Ann names herself (trimmed), then walks 5 km and takes 700 steps.
        let (set, profile) = try ann.json(
            "PUT", "/v1/users/ann/profile", ["locale": "ru", "display_name": "  Анна "])
        #expect(set == 200 && profile["display_name"] == "Анна", "\(profile)")
        let events: [JSON] = [
            [
                "event_id": "ann-walk", "user_id": "ann", "type": "walk_completed", "occurred_at": .string(now),
                "payload": ["distance_km": 5],
            ],
            [
                "event_id": "ann-steps", "user_id": "ann", "type": "steps_logged", "occurred_at": .string(now),
                "payload": ["steps": 700],
            ],
        ]
        #expect(try ann.json("POST", "/v1/events", ["events": .array(events)]).1["accepted"] == 2)

        // Ben reads her name in the feed, its text, the ranking and the screen.
        let (_, feed) = try ben.json("GET", "/v1/challenges/walk-50k/feed?limit=10")
        let lines = feed["feed"]?.arrayValue ?? []
        #expect(lines.contains { $0["text"] == "Анна: +5 км" && $0["display_name"] == "Анна" }, "\(feed)")
        #expect(lines.contains { $0["text"] == "Анна — в челлендже" && $0["is_you"] == false }, "\(feed)")
        // Ben has no name: to himself he is «Вы».
        #expect(lines.contains { $0["text"] == "Вы — в челлендже" && $0["display_name"] == .null }, "\(feed)")
        let (_, ranking) = try ben.json("GET", "/v1/challenges/walk-50k/ranking")
        #expect(ranking["ranking"]?[0]?["display_name"] == "Анна" && ranking["ranking"]?[0]?["value"] == 5)
        let (_, screen) = try ben.json("GET", "/v1/challenges/walk-50k?user_id=ben")
        #expect(screen["ranking"]?[0]?["display_name"] == "Анна", "\(screen)")
        #expect(screen["feed"]?.arrayValue?.contains { $0["text"] == "Анна: +5 км" } == true)
        // Her share card carries her name; Ben's none.
        #expect(try ann.json("GET", "/v1/challenges/walk-50k/share?user_id=ann").1["display_name"] == "Анна")
        #expect(try ben.json("GET", "/v1/challenges/walk-50k/share?user_id=ben").1["display_name"] == .null)
        // Head-to-head: the sides are teams, the feed names people.
        let (_, duel) = try ben.json("GET", "/v1/challenges/steps-duel/feed")
        #expect(
            duel["feed"]?.arrayValue?.contains {
                $0["display_name"] == "Анна" && $0["text"]?.stringValue?.hasPrefix("Анна: +700") == true
            } == true, "\(duel)")
        // Ann, unnamed to her, reads Ben as a participant.
        let (_, hers) = try ann.json("GET", "/v1/challenges/walk-50k/feed")
        #expect(hers["feed"]?.arrayValue?.contains { $0["text"] == "Участник — в челлендже" } == true, "\(hers)")
        #expect(hers["feed"]?.arrayValue?.contains { $0["text"] == "Вы: +5 км" } == true, "\(hers)")

        // Ben cannot rename Ann, nor read her profile.
        let (forbidden, _) = try ben.json("PUT", "/v1/users/ann/profile", ["display_name": "Борис"])
        #expect(forbidden == 403)
        #expect(try ben.json("GET", "/v1/users/ann/profile").0 == 403)

        // Every refused name: 422 naming the field; her name stays.
        for refused in Self.refused {
            let (status, body) = try ann.json("PUT", "/v1/users/ann/profile", ["display_name": refused.name])
            let error = body["errors"]?[0]
            #expect(status == 422 && body["code"] == "invalid_request", "\(refused.message): \(body)")
            #expect(error?["field"] == "display_name" && error?["path"] == "/display_name", "\(body)")
            #expect(error?["code"] == .string(refused.code) && error?["message"] == .string(refused.message), "\(body)")
        }
        #expect(try ann.json("GET", "/v1/users/ann/profile").1["display_name"] == "Анна")

        // Null clears it: Ben reads «Участник» again.
        #expect(try ann.json("PUT", "/v1/users/ann/profile", ["locale": "ru", "display_name": .null]).0 == 200)
        let (_, after) = try ben.json("GET", "/v1/challenges/walk-50k/feed")
        #expect(after["feed"]?.arrayValue?.contains { $0["text"] == "Участник: +5 км" } == true, "\(after)")
        #expect(!after.compactText.contains("Анна"))
    }
}
