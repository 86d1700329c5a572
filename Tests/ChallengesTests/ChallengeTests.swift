import Challenges
import Core
import Engine
import Features
import Foundation
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// Challenges through the one ingest path: time rules at their exact boundaries, resends,
/// out-of-order events, completion exactly once, recurring instances, community totals,
/// head-to-head overtaking, joining, the digest.
struct ChallengeTests {
    @Test(
        arguments: try CaseFile("boundaries.yaml").cases(
            keys: CaseKeys(expecting: ["counts", "refused"], others: ["at", "received"])))
    func timeRules(_ testCase: NamedCase) throws {
        let harness = try ChallengeHarness(Definitions.all)
        let join = harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-07-20T08:00:00Z")
        #expect(join.status == .accepted, "\(join.json)")
        let result = harness.send(
            "u1", "walk_completed", ["km": 1], at: testCase["at"]!.stringValue!,
            received: testCase["received"]?.stringValue)
        let name = testCase["name"]!.stringValue!
        if let refused = testCase["refused"]?.stringValue {
            #expect(result.code == refused, "\(name): \(result.json)")
            #expect(try harness.value("sprint", "u1") == 0)
        } else {
            #expect(result.status == .accepted, "\(name): \(result.json)")
            #expect(try harness.value("sprint", "u1") == (testCase["counts"] == true ? 1 : 0), "\(name)")
        }
    }

    /// A resent event (same id) counts once, also when it completes the challenge: one
    /// completion, one XP grant, one badge, one celebration.
    @Test func completionHappensOnceUnderResends() throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-08-01T08:00:00Z")
        harness.send("u1", "walk_completed", ["km": 6], at: "2026-08-02T08:00:00Z", id: "w1")
        let completing = harness.send("u1", "walk_completed", ["km": 5], at: "2026-08-03T08:00:00Z", id: "w2")
        #expect(completing.effects.contains { $0["type"] == "challenge_completed" })
        let celebration = completing.effects.first { $0["type"] == "reminder_scheduled" }
        #expect(harness.rendered(celebration?["payload"]?["text"]) == "You did it: August sprint!")
        #expect(harness.rendered(celebration?["payload"]?["text"], "ru") == "Получилось: «August sprint»!")
        for _ in 0..<3 {
            let again = harness.send("u1", "walk_completed", ["km": 5], at: "2026-08-03T08:00:00Z", id: "w2")
            #expect(again.status == .duplicate)
        }
        let after = harness.send("u1", "walk_completed", ["km": 2], at: "2026-08-04T08:00:00Z", id: "w3")
        #expect(!after.effects.contains { $0["type"] == "challenge_completed" })
        #expect(try harness.value("sprint", "u1") == 13)
        #expect(try harness.count("SELECT count(*) FROM rewards WHERE reward = 'xp' AND amount = 50") == 1)
        #expect(try harness.count("SELECT count(*) FROM rewards WHERE badge_id = 'sprinter'") == 1)
        #expect(try harness.count("SELECT count(*) FROM reminders WHERE kind = 'challenge_completed:sprint'") == 1)
        #expect(try harness.count("SELECT count(*) FROM challenge_feed WHERE action = 'completed'") == 1)
    }

    /// The same events in any order give the same value and one completion.
    @Test(arguments: [1, 2, 3])
    func outOfOrderEventsCountTheSame(seed: UInt64) throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-08-01T08:00:00Z")
        var days = Array(7...12)
        var generator = SplitMix64(seed: seed)
        days.shuffle(using: &generator)
        for day in days {
            let at = String(format: "2026-08-%02dT18:00:00+02:00", day)
            harness.send("u1", "walk_completed", ["km": 2], at: at, received: "2026-08-13T08:00:00+02:00")
        }
        #expect(try harness.value("sprint", "u1") == 12)
        #expect(try harness.count("SELECT count(*) FROM rewards") == 2)
    }

    /// A community's total equals the sum over its participants after a random stream with
    /// duplicates, and its participant count is kept without scanning.
    @Test func communityTotalsEqualTheSumOverParticipants() throws {
        let harness = try ChallengeHarness(Definitions.all)
        var generator = SplitMix64(seed: 9)
        for n in 0..<60 {
            harness.send("u\(n)", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-01T08:00:00Z")
        }
        var sent: [(user: String, id: String, km: Double, at: String)] = []
        for n in 0..<600 {
            let user = "u\(generator.next() % 70)"  // some are not participants
            let km = Double(generator.next() % 50) / 10
            let at = String(
                format: "2026-08-%02dT%02d:00:00Z", 2 + Int(generator.next() % 28), Int(generator.next() % 24))
            sent.append((user, "w\(n)", km, at))
        }
        for event in sent + sent.prefix(100) {  // a hundred resends
            harness.send(event.user, "walk_completed", ["km": .number(event.km)], at: event.at, id: event.id)
        }
        let totals = try harness.store.challengeTotals(challenge: "pack")
        let group = try #require(totals.first { $0.team.isEmpty })
        let sum = try harness.store.challengeRanking(challenge: "pack", team: nil, limit: 1000).map(\.value).reduce(
            0, +)
        #expect(abs(group.value - sum) < 1e-9)
        let expected = sent.filter { Int($0.user.dropFirst())! < 60 }.map(\.km).reduce(0, +)
        #expect(abs(group.value - expected) < 1e-9)
        #expect(group.participants == 60)
    }

    /// A side that reaches the target completes every member of it at that moment, whoever's
    /// event reached it, in either order of arrival; nobody is credited twice.
    @Test(arguments: [false, true])
    func aSideReachingTheTargetCompletesEveryMember(reversed: Bool) throws {
        let harness = try ChallengeHarness(Definitions.all)
        for (user, team) in [("ann", "red"), ("ada", "red"), ("ben", "blue")] {
            harness.send(
                user, "challenge_joined", ["challenge_id": "duel", "team": .string(team)], at: "2026-08-01T08:00:00Z")
        }
        let steps: [(String, String, Double)] = [
            ("ada", "2026-08-02T10:00:00Z", 40), ("ann", "2026-08-03T10:00:00Z", 70),
            ("ada", "2026-08-04T10:00:00Z", 10),
        ]
        for (user, at, count) in reversed ? steps.reversed() : steps {
            harness.send(user, "steps_logged", ["steps": .number(count)], at: at)
        }
        let reached = Timestamp.parse("2026-08-03T10:00:00Z")
        for user in ["ann", "ada"] {
            #expect(
                try harness.store.challengeParticipation(challenge: "duel", user: user)?.completedAt == reached,
                "\(user)")
        }
        #expect(try harness.store.challengeParticipation(challenge: "duel", user: "ben")?.completedAt == nil)
        #expect(
            try harness.count(
                "SELECT count(*) FROM challenge_feed WHERE challenge_id = 'duel' AND action = 'completed'")
                == 2)
    }

    /// A member who joined before the side reached the target, whose join arrives after it
    /// did, completes at that moment as if the join had come first; one who joined after it
    /// does not.
    @Test func aLateJoinOfAMemberBeforeTheSideReachedItCompletesThen() throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("ann", "challenge_joined", ["challenge_id": "duel", "team": "red"], at: "2026-08-01T08:00:00Z")
        harness.send("ben", "challenge_joined", ["challenge_id": "duel", "team": "blue"], at: "2026-08-01T08:00:00Z")
        harness.send("ann", "steps_logged", ["steps": 120], at: "2026-08-03T10:00:00Z")
        harness.send("ada", "challenge_joined", ["challenge_id": "duel", "team": "red"], at: "2026-08-02T08:00:00Z")
        harness.send("cy", "challenge_joined", ["challenge_id": "duel", "team": "red"], at: "2026-08-04T08:00:00Z")
        let reached = Timestamp.parse("2026-08-03T10:00:00Z")
        #expect(try harness.store.challengeParticipation(challenge: "duel", user: "ada")?.completedAt == reached)
        #expect(try harness.store.challengeParticipation(challenge: "duel", user: "cy")?.completedAt == nil)
        #expect(
            try harness.count(
                "SELECT count(*) FROM challenge_feed WHERE challenge_id = 'duel' AND action = 'completed'")
                == 2)
    }

    /// A community goal completes at its target: a custom completion rule on the group's
    /// total would depend on the order events arrive in, so it does not load.
    @Test func aCommunityGoalTakesNoCompletionRule() throws {
        let folder = try TemporaryDirectory([
            "pack.yaml": """
            challenge: pack
            title: Pack
            type: community
            metric: {events: [walk_completed], expr: .payload.km}
            completion: .value >= .target and .event.payload.km >= 2
            target_value: 100
            starts_at: 2026-08-01T00:00:00+02:00
            ends_at: 2026-08-31T23:59:59+02:00
            """
        ])
        let loaded = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: nil).load()
        #expect(loaded.evaluator == nil)
        let diagnostic = loaded.diagnostics.first { $0.code == "invalid_value" }
        #expect(diagnostic?.message.contains("a community goal completes when the group's total reaches") == true)
        #expect(diagnostic?.description.contains("pack.yaml:5:") == true, "\(loaded.diagnostics)")
    }

    @Test func headToHeadOvertaking() throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("ann", "challenge_joined", ["challenge_id": "duel", "team": "red"], at: "2026-08-01T08:00:00Z")
        harness.send("ada", "challenge_joined", ["challenge_id": "duel", "team": "red"], at: "2026-08-01T08:00:00Z")
        harness.send("ben", "challenge_joined", ["challenge_id": "duel", "team": "blue"], at: "2026-08-01T08:00:00Z")
        let third = harness.send(
            "cy", "challenge_joined", ["challenge_id": "duel", "team": "green"], at: "2026-08-01T08:00:00Z")
        #expect(third.code == "challenge_full")
        func notices(_ result: IngestResult, _ kind: String) -> [String] {
            result.effects.filter {
                $0["type"] == "reminder_scheduled" && $0["kind"]?.stringValue?.hasPrefix(kind) == true
            }.compactMap { harness.rendered($0["payload"]?["text"])?.stringValue }
        }
        var progress: [String] = []
        func overtakes(_ result: IngestResult) -> [String] {
            progress = notices(result, "challenge_opponent_progress:duel")
            return notices(result, "challenge_overtaken:duel")
        }
        #expect(
            overtakes(harness.send("ann", "steps_logged", ["steps": 5], at: "2026-08-02T08:00:00Z")).isEmpty,
            "the first step of all is not overtaking")
        // CH-03: the other side hears of the opponent's progress.
        // Issue 42: a side's name, never its id; numbers in the locale's digits.
        #expect(progress == ["Red: 5 of 100 in Duel. You: 0"])
        let benAhead = overtakes(harness.send("ben", "steps_logged", ["steps": 7], at: "2026-08-02T09:00:00Z"))
        #expect(
            benAhead.sorted() == [
                "Blue overtook you in Duel", "Blue overtook you in Duel", "You took the lead in Duel",
            ])
        #expect(progress.isEmpty, "overtaking says it instead")
        #expect(
            overtakes(harness.send("ada", "steps_logged", ["steps": 2], at: "2026-08-02T10:00:00Z")).isEmpty,
            "level is not ahead")
        #expect(progress == ["Red: 7 of 100 in Duel. You: 7"])
        // One pending notice per member: the latest replaced the one not sent yet.
        #expect(
            try harness.count(
                "SELECT count(*) FROM reminders WHERE user_id = 'ben' AND kind = 'challenge_opponent_progress:duel' AND status = 'pending'"
            ) == 1)
        #expect(
            try harness.count(
                "SELECT count(*) FROM reminders WHERE user_id = 'ben' AND kind = 'challenge_opponent_progress:duel' AND payload LIKE '%\"opponent_value\":7,%'"
            ) == 1)
        let redAhead = overtakes(harness.send("ada", "steps_logged", ["steps": 1], at: "2026-08-02T11:00:00Z"))
        #expect(
            redAhead.sorted() == ["Red overtook you in Duel", "You took the lead in Duel", "You took the lead in Duel"])
        let view = try ChallengeViews.show(
            ChallengeCatalog(ruleSet: harness.evaluator.ruleSet).resolve("duel")!, store: harness.store, user: "ben",
            now: Timestamp.parse("2026-08-03T00:00:00Z")!, naming: .userIDs)
        #expect(view["ranking"]?[0]?["team_id"] == "red")
        #expect(view["ranking"]?[0]?["value"] == 8)
        #expect(view["me"]?["rank"] == 2)
        #expect(view["me"]?["current_value"] == 7)
        #expect(view["final"] == false)
        let later = try ChallengeViews.show(
            ChallengeCatalog(ruleSet: harness.evaluator.ruleSet).resolve("duel")!, store: harness.store, user: nil,
            now: Timestamp.parse("2026-09-07T22:05:00Z")!, naming: .userIDs)
        #expect(later["status"] == "ended")
        #expect(later["final"] == true, "ends_at (21:59:59Z) + 5 min grace + 7 days has passed")
    }

    @Test func joiningIsChecked() throws {
        let harness = try ChallengeHarness(Definitions.all)
        #expect(
            harness.send("u1", "challenge_joined", ["challenge_id": "nope"], at: "2026-08-01T08:00:00Z").code
                == "unknown_challenge")
        #expect(
            harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-09-01T00:00:00+02:00").code
                == "challenge_ended")
        #expect(
            harness.send("u1", "challenge_joined", ["challenge_id": "sprint", "team": "x"], at: "2026-08-01T08:00:00Z")
                .code == "invalid")
        #expect(harness.send("u1", "challenge_joined", [:], at: "2026-08-01T08:00:00Z").code == "invalid")
        #expect(
            harness.send("u1", "challenge_joined", ["challenge_id": "weekly@2026-10-06"], at: "2026-10-06T08:00:00Z")
                .code == "unknown_challenge", "not an instance start")
        let first = harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-08-01T08:00:00Z")
        let again = harness.send("u1", "challenge_joined", ["challenge_id": "sprint"], at: "2026-08-02T08:00:00Z")
        #expect(first.effects.count == 2)
        #expect(again.status == .accepted && again.effects.isEmpty, "joining twice changes nothing")
        #expect(try harness.store.challengeTotals(challenge: "sprint").first?.participants == 1)
    }

    /// Weekly instances start at local midnight on Mondays (DST included); monthly ones on the
    /// first, across month and year ends.
    @Test func recurringInstances() throws {
        let harness = try ChallengeHarness(Definitions.all)
        let catalog = ChallengeCatalog(ruleSet: harness.evaluator.ruleSet)
        let monthly = try #require(catalog.challenges.first { $0.id == "monthly" }).instances()
        #expect(
            monthly.map(\.id) == [
                "monthly@2026-11-01", "monthly@2026-12-01", "monthly@2027-01-01", "monthly@2027-02-01",
            ])
        #expect(
            monthly.map { Timestamp.format($0.endsAt) } == [
                "2026-11-30T22:59:59Z", "2026-12-31T22:59:59Z", "2027-01-31T22:59:59Z", "2027-02-28T22:59:59Z",
            ])
        #expect(monthly.allSatisfy { $0.kind == .community })
        let weekly = try #require(catalog.challenges.first { $0.id == "weekly" })
        // Autumn: summer time ends on Sunday 25 October 2026.
        let autumn = try #require(catalog.resolve("weekly@2026-10-19"))
        #expect(Timestamp.format(autumn.startsAt) == "2026-10-18T22:00:00Z")
        #expect(Timestamp.format(autumn.endsAt) == "2026-10-25T22:59:59Z")
        // Across the year end.
        #expect(catalog.resolve("weekly@2026-12-28").map { Timestamp.format($0.endsAt) } == "2027-01-03T22:59:59Z")
        // Spring: summer time starts on Sunday 28 March 2027.
        let spring = try #require(catalog.resolve("weekly@2027-03-22"))
        #expect(Timestamp.format(spring.endsAt) == "2027-03-28T21:59:59Z")
        #expect(weekly.instances().count == 26)
        #expect(catalog.resolve("weekly@2027-04-05") == nil, "until is exclusive")
        // An event in the last local hour of the autumn week counts for it, not the next.
        harness.send("u1", "challenge_joined", ["challenge_id": "weekly@2026-10-19"], at: "2026-10-19T08:00:00+02:00")
        harness.send("u1", "challenge_joined", ["challenge_id": "weekly@2026-10-26"], at: "2026-10-19T08:00:00+02:00")
        harness.send(
            "u1", "walk_completed", ["km": 3], at: "2026-10-25T23:30:00+01:00", received: "2026-10-26T09:00:00+01:00")
        harness.send(
            "u1", "walk_completed", ["km": 4], at: "2026-10-26T00:10:00+01:00", received: "2026-10-26T09:00:00+01:00")
        #expect(try harness.value("weekly@2026-10-19", "u1") == 3, "23:30 on the 25-hour Sunday is still that week")
        #expect(
            try harness.value("weekly@2026-10-26", "u1") == 4,
            "00:10 on Monday is the next week (and inside the last one's grace only until 00:04:59)")
    }

    /// The digest goes out once a day with the group's progress, and credits a completed group.
    @Test func communityDigest() throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("u1", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-01T08:00:00Z")
        harness.send("u2", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-01T08:00:00Z")
        harness.send("u1", "walk_completed", ["km": 600], at: "2026-08-10T08:00:00Z")
        harness.send("u2", "walk_completed", ["km": 70], at: "2026-08-10T09:00:00Z")
        let catalog = ChallengeCatalog(ruleSet: harness.evaluator.ruleSet)
        let now = Timestamp.parse("2026-08-29T10:00:00Z")!
        let first = try ChallengeDigest.run(catalog: catalog, store: harness.store, now: now)
        #expect(first.challenges == ["pack"])
        #expect(first.notifications == 2)
        let again = try ChallengeDigest.run(catalog: catalog, store: harness.store, now: now + 3600)
        #expect(again.notifications == 0, "once a day")
        let early = try ChallengeDigest.run(
            catalog: catalog, store: harness.store, now: Timestamp.parse("2026-08-30T08:59:59Z")!, notBefore: 9)
        #expect(early.challenges.isEmpty, "not before 09:00 UTC")
        let text = try harness.store.connection.prepare(
            "SELECT payload FROM reminders WHERE user_id = 'u2' AND kind = 'challenge_digest:pack'"
        ).first { $0.text(0) ?? "" }
        let digest = try JSONParser().parse(text ?? "")["text"]
        #expect(harness.rendered(digest) == "Our group has done 67% of the goal, 3 days left")
        #expect(harness.rendered(digest, "ru") == "Наша группа выполнила 67% цели, осталось 3 дня")
        // The group reaches its goal; the next day's digest credits each participant once.
        let done = harness.send("u2", "walk_completed", ["km": 400], at: "2026-08-29T12:00:00Z")
        #expect(done.effects.contains { $0["type"] == "challenge_group_completed" })
        let next = try ChallengeDigest.run(catalog: catalog, store: harness.store, now: now + 86_400)
        #expect(next.completions == 2)
        #expect(try harness.count("SELECT count(*) FROM rewards WHERE reason = 'challenge:pack'") == 2)
        #expect(try ChallengeDigest.run(catalog: catalog, store: harness.store, now: now + 2 * 86_400).completions == 0)
    }

    /// A community goal credits every participant when it is reached, not at the next digest:
    /// completion at the moment the group reached it (or at a later join), XP once, and the
    /// celebration with "join the next one".
    @Test func aReachedCommunityGoalCreditsEveryoneAtThatMoment() throws {
        let harness = try ChallengeHarness(Definitions.all)
        harness.send("u1", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-01T08:00:00Z")
        harness.send("u2", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-01T08:00:00Z")
        harness.send("u1", "walk_completed", ["km": 600], at: "2026-08-10T08:00:00Z")
        harness.send("u2", "walk_completed", ["km": 400], at: "2026-08-11T09:00:00Z")
        harness.send("u3", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-12T10:00:00Z")
        let catalog = ChallengeCatalog(ruleSet: harness.evaluator.ruleSet)
        let now = Timestamp.parse("2026-08-12T10:01:00Z")!
        #expect(try ChallengeCrediting.run(catalog: catalog, store: harness.store, now: now) == 3)
        #expect(try ChallengeCrediting.run(catalog: catalog, store: harness.store, now: now + 60) == 0)
        let reached = Timestamp.parse("2026-08-11T09:00:00Z")!
        #expect(try harness.store.challengeParticipation(challenge: "pack", user: "u1")?.completedAt == reached)
        #expect(
            try harness.store.challengeParticipation(challenge: "pack", user: "u3")?.completedAt
                == Timestamp.parse("2026-08-12T10:00:00Z"), "joined after the goal was reached")
        #expect(try harness.count("SELECT count(*) FROM rewards WHERE reason = 'challenge:pack'") == 3)
        let celebration = try harness.store.first(
            "SELECT payload, due_at FROM reminders WHERE user_id = 'u2' AND kind = 'challenge_completed:pack'", []
        ) { (try JSONParser().parse($0.text(0) ?? ""), $0.real(1)) }
        #expect(celebration?.1 == reached)
        #expect(harness.rendered(celebration?.0["text"]) == "You did it: Pack walk!")
        #expect(celebration?.0["next_challenge"]?["id"] != nil)
        #expect(try ChallengeDigest.run(catalog: catalog, store: harness.store, now: now + 86_400).completions == 0)
    }
}

extension ChallengeTests {
    /// The habit trackers' streak is a fact the challenge's completion rule reads: seven
    /// scheduled days in a row complete it (unscheduled days do not break the run), six do not.
    @Test func aStreakChallengeReadsTheHabitFacts() throws {
        let harness = try ChallengeHarness(Definitions.all)
        let joined = harness.send("u1", "challenge_joined", ["challenge_id": "streak"], at: "2026-08-01T08:00:00Z")
        #expect(joined.status == .accepted, "\(joined.json)")
        harness.send("u1", "category_created", ["category_id": "sport", "name": "Sport"], at: "2026-08-01T08:00:00Z")
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "gym", "name": "Gym", "schedule": ["mon", "wed", "fri"], "category": "sport",
                "emoji": "⭐", "color": "#3366FF",
            ],
            at: "2026-08-01T08:00:00Z")
        // Mon 3, Wed 5, then Fri 7 is missed: the run restarts on Mon 10 and reaches seven
        // scheduled days on Mon 24 (weekends and Tuesdays/Thursdays do not break it).
        var completedOn: [String] = []
        for day in [3, 5, 10, 12, 14, 17, 19, 21, 24, 26] {
            let at = String(format: "2026-08-%02dT19:00:00+02:00", day)
            let result = harness.send("u1", "habit_checked", ["tracker_id": "gym"], at: at)
            #expect(result.status == .accepted, "\(result.json)")
            if result.effects.contains(where: { $0["type"] == "challenge_completed" }) { completedOn.append(at) }
        }
        #expect(completedOn == ["2026-08-24T19:00:00+02:00"], "once, on the seventh day of the run")
    }
}

extension ChallengeTests {
    /// Events no metric names are not even looked at; a metric without `events:` sees them all.
    @Test(arguments: [true, false])
    func metricsWithAndWithoutEventFilters(filtered: Bool) throws {
        let metric = filtered ? "{events: [walk_completed], expr: .payload.km}" : ".payload.km // empty"
        let definition = """
            challenge: any
            title: Any
            type: solo
            metric: \(metric)
            target_value: 100
            starts_at: 2026-08-01T00:00:00+02:00
            ends_at: 2026-08-31T23:59:59+02:00
            """
        let harness = try ChallengeHarness(["any.yaml": definition])
        harness.send("u1", "challenge_joined", ["challenge_id": "any"], at: "2026-08-01T08:00:00Z")
        harness.send("u1", "walk_completed", ["km": 2], at: "2026-08-02T08:00:00Z")
        harness.send("u1", "swim_completed", ["km": 3], at: "2026-08-03T08:00:00Z")
        #expect(try harness.value("any", "u1") == (filtered ? 2 : 5))
    }
}

extension ChallengeTests {
    static let checkinSequences: [(String, [(type: String, date: String)], Double)] = [
        ("5 retries of one check-in", Array(repeating: ("habit_checked", "2026-08-03"), count: 5), 1),
        (
            "check, uncheck, check, uncheck, check",
            [
                ("habit_checked", "2026-08-03"), ("habit_unchecked", "2026-08-03"), ("habit_checked", "2026-08-03"),
                ("habit_unchecked", "2026-08-03"), ("habit_checked", "2026-08-03"),
            ], 1
        ),
        (
            "two days, each sent twice",
            [
                ("habit_checked", "2026-08-03"), ("habit_checked", "2026-08-03"), ("habit_checked", "2026-08-04"),
                ("habit_checked", "2026-08-04"),
            ], 2
        ),
        (
            "a day unchecked still counted once", [("habit_checked", "2026-08-03"), ("habit_unchecked", "2026-08-03")],
            1
        ),
    ]

    /// Retries (each under a new event id, as the check-in route makes without `event_id`) and
    /// toggles of one day count once toward a challenge that counts check-ins, whether the
    /// user joined before them or after (the join counts the stored check-ins): the audit's 5
    /// retries gave 5.
    @Test(arguments: checkinSequences, [true, false])
    func retriedAndToggledCheckinsCountOnce(
        _ sequence: (name: String, steps: [(type: String, date: String)], value: Double), joinedFirst: Bool
    ) throws {
        let harness = try ChallengeHarness(Definitions.all)
        func join() {
            let joined = harness.send(
                "u1", "challenge_joined", ["challenge_id": "streak"], at: "2026-08-04T21:00:00+02:00")
            #expect(joined.status == .accepted, "\(joined.json)")
        }
        harness.send("u1", "category_created", ["category_id": "dog", "name": "Dog"], at: "2026-08-01T08:00:00Z")
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "walk", "name": "Walk", "schedule": ["mon", "tue", "wed"], "category": "dog",
                "emoji": "⭐", "color": "#3366FF",
            ],
            at: "2026-08-01T08:00:00Z")
        if joinedFirst { join() }
        for (index, step) in sequence.steps.enumerated() {
            let result = harness.send(
                "u1", step.type, ["tracker_id": "walk", "date": .string(step.date)],
                at: String(format: "2026-08-04T20:%02d:00+02:00", index))
            #expect(result.status != .rejected, "\(sequence.name), step \(index + 1): \(result.json)")
        }
        if !joinedFirst { join() }
        #expect(
            try harness.value("streak", "u1") == sequence.value,
            "\(sequence.name), joined \(joinedFirst ? "first" : "after")")
    }
}
