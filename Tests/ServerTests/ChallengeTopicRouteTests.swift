import Challenges
import Core
import Features
import Foundation
import TestSupport
import Testing

/// CH-12: each challenge has an FCM topic the app subscribes to when it joins (the challenge's
/// screen and list name it, the join answer says to subscribe), and the community digest —
/// the same message for every participant — reaches a push sender once per topic, while the
/// per-user reminders stay per user.
@Suite struct ChallengeTopicRouteTests {
    static let names: [(String, String)] = [
        ("walk-50k", "challenge-walk-50k"),
        ("weekly-training@2026-12-07", "challenge-weekly-training%402026-12-07"),
        ("a b/ü%_~.", "challenge-a%20b%2F%C3%BC%25_~."),
    ]

    @Test(arguments: names)
    func aTopicIsTheIdInFCMsAlphabet(id: String, topic: String) {
        #expect(ChallengeTopic.name(of: id) == topic)
        #expect(topic.wholeMatch(of: #/[a-zA-Z0-9\-_.~%]+/#) != nil)
    }

    @Test(arguments: TestStore.names)
    func theDigestIsOneMessageToTheChallengesTopic(backend name: String) throws {
        let backend = try TestStore(name, schema: Features.all.schema)
        let harness = try ServiceHarness(database: backend.location)
        let topic: JSON = "challenge-community-walks"
        #expect(harness.send("GET", "/v1/challenges/community-walks").json["topic"] == topic)
        let listed = harness.send("GET", "/v1/challenges").json["challenges"]?.arrayValue ?? []
        #expect(listed.first { $0["id"] == "community-walks" }?["topic"] == topic, "\(listed)")
        for user in ["ann", "ben", "cy"] {
            let joined = harness.send("POST", "/v1/challenges/community-walks/join", json: ["user_id": .string(user)])
            #expect(joined.status == 201, "\(joined.text)")
            #expect(joined.json["push"] == ["topic": topic, "subscribe": "at_join", "unsubscribe": "after_end"])
        }
        let report = try ChallengeDigest.run(
            catalog: ChallengeCatalog(ruleSet: harness.service.ruleSet), store: harness.service.store,
            now: ServiceHarness.now)
        #expect(report.notifications == 3)

        let due = "/v1/reminders/due?before=2027-01-31T00:00:00Z&limit=100"
        let rows = harness.send("GET", due).json["reminders"]?.arrayValue ?? []
        let digests = rows.filter { $0["kind"] == "challenge_digest:community-walks" }
        #expect(digests.count == 3 && digests.allSatisfy { $0["topic"] == topic }, "\(rows)")
        let perUser = rows.filter { $0["topic"] == .null }
        #expect(!perUser.isEmpty, "the seeded dogs' reminders are per user")

        let grouped = harness.send("GET", due + "&topics=true").json
        #expect(grouped["reminders"]?.arrayValue == perUser)
        let messages = grouped["topic_messages"]?.arrayValue ?? []
        #expect(messages.count == 1, "\(grouped)")
        #expect(messages.first?["topic"] == topic && messages.first?["kind"] == "challenge_digest:community-walks")
        // One message to every subscriber: in the default locale, with its text in each locale.
        #expect(messages.first?["payload"]?["text"]?.stringValue?.hasPrefix("Наша группа выполнила") == true)
        #expect(messages.first?["texts"]?["en"]?.stringValue?.hasPrefix("Our group has done") == true, "\(grouped)")
        let ids = messages.first?["ids"]?.arrayValue ?? []
        #expect(Set(ids) == Set(digests.compactMap { $0["id"] }))

        let sent = harness.send("POST", "/v1/reminders/sent", json: ["ids": .array(ids)])
        #expect(sent.json["marked"]?.arrayValue?.count == 3, "\(sent.text)")
        #expect(harness.send("GET", due + "&topics=true").json["topic_messages"] == [])
        #expect(harness.send("GET", due + "&topics=maybe").status == 422)
    }
}
