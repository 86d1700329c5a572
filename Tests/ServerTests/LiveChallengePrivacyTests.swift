import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// A challenge's feed, ranking and screen show other participants to a user by an opaque
/// handle, never by the `sub` of their token (often an e-mail or an account id): the audit's
/// user A read user B's id in both. The handle is the same for a participant whoever looks and
/// wherever in one challenge, differs from one challenge to another (it cannot link a user
/// across challenges), and comes from a key the store keeps (another store gives another one);
/// the user's own lines are marked as theirs, and `display_name` is there for profiles to fill.
@Suite struct LiveChallengePrivacyTests {
    static let ann = "ann.lee@example.com"
    static let ben = "ben-4f2a9c@example.com"
    static let cat = "cat-77e1@example.com"

    static func service() throws -> LiveService {
        try LiveChallengesDocumentTests.service(opening: ["walk-50k", "community-walks"])
    }

    /// Ann and Ben join both challenges and walk; returns each user's app.
    static func join(_ service: LiveService) throws -> [String: App] {
        let now = Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60)
        var apps: [String: App] = [:]
        for (index, user) in [ann, ben, cat].enumerated() {
            let app = App(service: service, token: AuthFixture.token(user))
            apps[user] = app
            guard user != cat else { continue }
            for challenge in ["walk-50k", "community-walks"] {
                let (status, body) = try app.json(
                    "POST", "/v1/challenges/\(challenge)/join", ["user_id": .string(user)])
                try #require(status == 201, "\(body)")
            }
            let walk: JSON = [
                "event_id": .string("walk-\(index)"), "user_id": .string(user), "type": "walk_completed",
                "occurred_at": .string(now), "payload": ["distance_km": .number(Double(10 + index))],
            ]
            try #require(try app.json("POST", "/v1/events", ["events": [walk]]).1["accepted"] == 1)
        }
        return apps
    }

    @Test func othersAreShownByAHandleNeverByTheirId() throws {
        let service = try Self.service()
        defer { service.stop() }
        let apps = try Self.join(service)
        // What each user sees of each challenge: feed lines and ranking rows, by viewer.
        var handles: [String: [String: Set<String>]] = [:]  // challenge → user → handles seen
        for viewer in [Self.ann, Self.ben, Self.cat] {
            let app = try #require(apps[viewer])
            for challenge in ["walk-50k", "community-walks"] {
                let (_, feed) = try app.json("GET", "/v1/challenges/\(challenge)/feed?limit=50")
                let (_, ranking) = try app.json("GET", "/v1/challenges/\(challenge)/ranking")
                let (_, screen) = try app.json("GET", "/v1/challenges/\(challenge)?user_id=\(viewer)")
                for body in [feed, ranking, screen] {
                    for user in [Self.ann, Self.ben, Self.cat] where user != viewer {
                        #expect(!body.compactText.contains(user), "\(viewer) reads \(user)'s id: \(body.compactText)")
                    }
                    #expect(!body.compactText.contains("\"user_id\""), "\(body.compactText)")
                }
                let lines =
                    (feed["feed"]?.arrayValue ?? []) + (ranking["ranking"]?.arrayValue ?? [])
                    + (screen["feed"]?.arrayValue ?? []) + (screen["ranking"]?.arrayValue ?? [])
                #expect(lines.count >= 10, "\(challenge) as seen by \(viewer)")
                for line in lines {
                    let handle = try #require(line["participant"]?.stringValue, "\(line)")
                    #expect(line["display_name"] == .null, "no profiles yet: \(line)")
                    // Whose line it is, from the walk's value (ann walked 10 km, ben 11).
                    let mine = line["is_you"] == true
                    let user = line["verb"] == "joined" ? nil : line["value"] == 10 ? Self.ann : Self.ben
                    if let user {
                        #expect(mine == (user == viewer), "\(viewer): \(line)")
                        handles[challenge, default: [:]][user, default: []].insert(handle)
                    }
                }
            }
        }
        for challenge in ["walk-50k", "community-walks"] {
            for user in [Self.ann, Self.ben] {
                // One handle per participant and challenge, whoever looks, in the feed and the ranking.
                #expect(handles[challenge]?[user]?.count == 1, "\(challenge) \(user): \(handles)")
            }
            #expect(handles[challenge]?[Self.ann] != handles[challenge]?[Self.ben])
        }
        for user in [Self.ann, Self.ben] {
            // Not linkable from one challenge to another.
            #expect(handles["walk-50k"]?[user] != handles["community-walks"]?[user])
        }

        // Another store (another key): other handles for the same users and challenges.
        let other = try Self.service()
        defer { other.stop() }
        let otherApps = try Self.join(other)
        let (_, ranking) = try #require(otherApps[Self.cat]).json("GET", "/v1/challenges/walk-50k/ranking")
        let otherHandles = Set((ranking["ranking"]?.arrayValue ?? []).compactMap { $0["participant"]?.stringValue })
        #expect(otherHandles.count == 2)
        #expect(otherHandles.isDisjoint(with: handles["walk-50k"]?.values.reduce(Set(), { $0.union($1) }) ?? []))
    }
}
