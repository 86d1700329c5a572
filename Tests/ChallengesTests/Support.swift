import Core
import Engine
import FeatureKit
import Features
import Foundation
import JQ
import RuleEngine
import SQLiteStore
import Store
import TestSupport
import Testing

/// A rules folder with challenge definitions, a fresh store and every consumer.
final class ChallengeHarness {
    private let folder: TemporaryDirectory
    let path: String
    let store: SQLiteStore
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    private let clock = TestClock()
    private var counter = 0

    /// `files` with the bundled locale files beside them (what the pushes and views say).
    init(_ files: [String: String]) throws {
        var files = files
        for locale in ["ru", "en"] where files["locales/\(locale).yaml"] == nil {
            files["locales/\(locale).yaml"] = try String(
                contentsOfFile: Repository.rules + "/locales/\(locale).yaml", encoding: .utf8)
        }
        folder = try TemporaryDirectory(files)
        path = folder.file("journey.sqlite")
        store = try SQLiteStore(path: path, schema: Features.all.schema)
        let loaded = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: nil)
            .load()
        evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: clock.reading), cores: 1)
    }

    /// Ingests an event of `user` that happened `at` and was received `received` (default: a
    /// second later); `id` makes a resend.
    @discardableResult
    func send(
        _ user: String, _ type: String, _ payload: JSONObject = [:], at: String, received: String? = nil,
        id: String? = nil
    ) -> IngestResult {
        counter += 1
        let occurred = Timestamp.parse(at)!
        clock.now = received.flatMap(Timestamp.parse) ?? occurred + 1
        let event: JSON = .object([
            "event_id": .string(id ?? "e\(counter)"), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(at), "payload": .object(payload),
        ])
        return ingestor.ingest([event])[0]
    }

    /// `json` with its deferred texts rendered in `locale` (as a reader in that locale reads it).
    func rendered(_ json: JSON?, _ locale: String = "en") -> JSON? {
        json.map {
            DeferredText.rendered(
                $0, texts: RequestTexts(locale: locale, source: "test", catalog: evaluator.ruleSet.texts))
        }
    }

    func value(_ challenge: String, _ user: String) throws -> Double? {
        try store.challengeParticipation(challenge: challenge, user: user)?.value
    }

    func count(_ sql: String) throws -> Int { Int(try store.connection.scalar(sql) ?? -1) }
}

enum Definitions {
    /// A solo challenge through August (Berlin summer time), 5 minutes' grace.
    static let sprint = """
        challenge: sprint
        title: August sprint
        type: solo
        metric: {events: [walk_completed], expr: .payload.km}
        target_value: 10
        starts_at: 2026-08-01T00:00:00+02:00
        ends_at: 2026-08-31T23:59:59+02:00
        grace: 5m
        xp_reward: 50
        badge_id: sprinter
        """

    static let pack = """
        challenge: pack
        title: Pack walk
        type: community
        metric: {events: [walk_completed], expr: .payload.km}
        target_value: 1000
        starts_at: 2026-08-01T00:00:00+02:00
        ends_at: 2026-08-31T23:59:59+02:00
        xp_reward: 20
        """

    static let duel = """
        challenge: duel
        title: Duel
        type: head_to_head
        metric: {events: [steps_logged], expr: .payload.steps}
        target_value: 100
        starts_at: 2026-08-01T00:00:00+02:00
        ends_at: 2026-08-31T23:59:59+02:00
        """

    static let weekly = """
        challenge: weekly
        title: Weekly
        type: recurring
        schedule: {every: week, timezone: Europe/Berlin, from: 2026-10-05, until: 2027-04-05}
        metric: {events: [walk_completed], expr: .payload.km}
        target_value: 10
        """

    static let monthly = """
        challenge: monthly
        title: Monthly
        type: recurring
        schedule: {every: month, timezone: Europe/Berlin, from: 2026-11-01, until: 2027-03-01, mode: community}
        metric: {events: [walk_completed], expr: .payload.km}
        target_value: 100
        """

    /// Completes on a 7-day streak of any habit (the habit trackers' fact).
    static let streak = """
        challenge: streak
        title: Streak
        type: solo
        metric: {events: [habit_checked], expr: "1"}
        completion: (.event.facts.habits.streak_days // 0) >= 7
        target_value: 7
        starts_at: 2026-08-01T00:00:00+02:00
        ends_at: 2026-08-31T23:59:59+02:00
        """

    static let all = [
        "sprint.yaml": sprint, "pack.yaml": pack, "duel.yaml": duel, "weekly.yaml": weekly, "monthly.yaml": monthly,
        "streak.yaml": streak,
    ]
}
