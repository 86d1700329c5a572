import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// CH-03: a head-to-head's "real-time feel" comes from polling, so polling is cheap: the
/// challenge screen and its feed carry an `ETag`, and a client sending it back in
/// `If-None-Match` gets `304 Not Modified` with no body until something it shows changed (the
/// screen's countdown, `seconds_left`, moves on its own and is left out of the tag).
@Suite struct ChallengePollingTests {
    struct Poll: Sendable, CustomTestStringConvertible {
        var name: String
        var path: String
        var testDescription: String { name }
    }

    static let polls: [Poll] = [
        Poll(name: "the challenge screen", path: "/v1/challenges/steps-duel?user_id=ann"),
        Poll(name: "the feed", path: "/v1/challenges/steps-duel/feed?limit=5"),
    ]

    @Test(arguments: polls)
    func aPollAnswers304UntilTheScreenChanges(_ poll: Poll) throws {
        let harness = try ServiceHarness(seed: false)
        _ = harness.send("POST", "/v1/challenges/steps-duel/join", json: ["user_id": "ann", "team_id": "red"])
        let first = harness.send("GET", poll.path)
        let tag = try #require(first.header("ETag"), "\(first.headers)")
        #expect(first.status == 200 && tag.hasPrefix("W/\""))
        for known in [tag, "\"other\", \(tag)", "*", String(tag.dropFirst(2))] {
            let again = harness.send("GET", poll.path, headers: ["If-None-Match": known])
            #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag, "\(known)")
        }
        #expect(harness.send("GET", poll.path, headers: ["If-None-Match": "W/\"0000000000000000\""]).status == 200)
        // Ben joins the other side: the screen and the feed change, and so does the tag.
        _ = harness.send("POST", "/v1/challenges/steps-duel/join", json: ["user_id": "ben", "team_id": "blue"])
        let changed = harness.send("GET", poll.path, headers: ["If-None-Match": tag])
        #expect(changed.status == 200 && changed.header("ETag") != tag, "\(changed.text)")
        let joins = changed.text.components(separatedBy: "\"verb\":\"joined\"").count - 1
        #expect(changed.text.contains("\"blue\"") || joins == 2, "\(changed.text)")
    }

    /// The same through `journey serve` (libmicrohttpd): the 304 has no body, and the tag stays
    /// while the countdown moves on.
    @Test func throughTheServer() throws {
        let service = try LiveChallengesDocumentTests.service()
        defer { service.stop() }
        let ann = App(service: service, token: AuthFixture.token("ann"))
        #expect(try ann.json("POST", "/v1/challenges/steps-duel/join", ["user_id": "ann", "team_id": "red"]).0 == 201)
        let headers = ["Authorization": "Bearer \(AuthFixture.token("ann"))"]
        let first = try service.client().send(
            "GET", "/v1/challenges/steps-duel?user_id=ann", headers: headers, body: nil)
        let tag = try #require(first.headers["etag"], "\(first.headers)")
        // Until the countdown has moved on: the screen changed, its tag did not.
        let secondsLeft = try #require(try JSONParser().parse(first.body)["seconds_left"], "\(first.text)")
        try waitUntil("the countdown moving on from \(secondsLeft)") {
            let now = try service.client().send(
                "GET", "/v1/challenges/steps-duel?user_id=ann", headers: headers, body: nil)
            return try JSONParser().parse(now.body)["seconds_left"] != secondsLeft
        }
        let again = try service.client().send(
            "GET", "/v1/challenges/steps-duel?user_id=ann", headers: headers.merging(["If-None-Match": tag]) { $1 },
            body: nil)
        #expect(again.status == 304 && again.body.isEmpty, "\(again.status) \(again.text)")
    }
}
