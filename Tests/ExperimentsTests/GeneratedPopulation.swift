import Core
import Engine
import Experiments
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// A made-up population with known true conversion rates per variation, written into a real
/// SQLite store the way the engine writes it: exposures through ``ExperimentAssigner`` (the
/// sticky assignment and its `experiment_viewed` event), app events through the ingest path,
/// analytics events through the store. What each user did is decided here, with a seeded
/// generator, and counted here, independently of the report: ``truth``.
final class GeneratedPopulation {
    static let key = "share-button"
    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!
    static let day = 86_400.0

    static func experiments(bucketVersion: Int = 1, weights: String? = nil) -> String {
        """
        experiments:
          - key: share-button
            variations: [control, short, bold]
        \(weights.map { "    weights: \($0)" } ?? "")
            bucket_version: \(bucketVersion)
            metrics:
              - key: opened
                event: journey_opened
                within: 7d
              - key: first_action
                event: action_completed
                where: .payload.first_time
                within: 3d
            guardrails:
              - key: shared
                event: share_tapped
                where: .source == "app" and .payload.screen == "journey"
                within: 2d
        """
    }

    /// The true rates: metric → variation → probability of converting.
    static let rates: [String: [String: Double]] = [
        "opened": ["control": 0.30, "short": 0.36, "bold": 0.27],
        "first_action": ["control": 0.12, "short": 0.16, "bold": 0.12],
        "shared": ["control": 0.06, "short": 0.06, "bold": 0.09],
    ]
    static let windows: [String: Double] = ["opened": 7 * day, "first_action": 3 * day, "shared": 2 * day]

    /// What the population did, counted as it was made.
    struct Truth {
        /// variation → users analysed (exposed by `now` to that variation only).
        var users: [String: Int] = [:]
        /// metric → variation → users who converted within the window, by `now`.
        var conversions: [String: [String: Int]] = [:]
        /// Users exposed to more than one variation by `now`.
        var multiple = 0
        /// Users exposed by `now`, the multiple ones included.
        var exposed = 0
    }

    let folder = RulesFolder(["experiments.yaml": GeneratedPopulation.experiments()])
    let database = TestDatabase(schema: Features.all.schema)
    private(set) var truth = Truth()

    /// `count` users from `seed`; about 3% are reassigned (the bucket version raised to 2 with
    /// everyone in `bold`), 1% are first exposed after `now`.
    init(users count: Int, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        func seconds(_ range: Double) -> Double { Double(Int(uniform() * range)) }
        let catalog = ExperimentCatalog(ruleSet: folder.load().ruleSet!)
        let raised = RulesFolder(["experiments.yaml": Self.experiments(bucketVersion: 2, weights: "[0, 0, 1]")])
        let store = database.store
        let first = ExperimentAssigner(catalog: catalog, store: store)
        let second = ExperimentAssigner(catalog: ExperimentCatalog(ruleSet: raised.load().ruleSet!), store: store)
        var appEvents: [(time: Double, event: JSON)] = []
        var counter = 0
        func appEvent(_ user: String, _ type: String, at time: Double, _ payload: JSONObject = [:]) {
            counter += 1
            appEvents.append(
                (
                    time,
                    .object([
                        "event_id": .string("e\(counter)"), "user_id": .string(user), "type": .string(type),
                        "occurred_at": .string(Timestamp.format(time)), "payload": .object(payload),
                    ])
                ))
        }
        func analytics(_ user: String, _ name: String, at time: Double, _ properties: JSONObject) throws {
            try store.appendAnalytics(
                AnalyticsEvent(userID: user, name: name, occurredAt: time, properties: properties), event: nil)
        }
        for metric in Self.rates.keys { truth.conversions[metric] = ["control": 0, "short": 0, "bold": 0] }
        try store.transaction {
            for index in 0..<count {
                let user = "user-\(index)"
                let subject = ExperimentSubject(userID: user)
                let late = uniform() < 0.01
                // Whole seconds, so that every time is exact in the store.
                let start = late ? Self.now + 1 + seconds(Self.day) : Self.now - 20 * Self.day + seconds(18 * Self.day)
                guard let variation = try first.use(Self.key, subject: subject, now: start).variation else {
                    Issue.record("\(user) got no variation")
                    continue
                }
                if late { continue }
                var multiple = false
                if uniform() < 0.03 {
                    let again = try second.use(Self.key, subject: subject, now: start + 600).variation
                    multiple = again != variation
                }
                truth.exposed += 1
                if multiple { truth.multiple += 1 } else { truth.users[variation, default: 0] += 1 }
                for metric in Self.rates.keys.sorted() {
                    let window = Self.windows[metric]!
                    var times: [Double] = []
                    if uniform() < Self.rates[metric]![variation]! {
                        // Some exactly at either end of the window: both ends count.
                        switch index % 50 {
                        case 0: times = [start]
                        case 1: times = [start + window]
                        default: times = [start + 1 + seconds(window - 2)]
                        }
                        if uniform() < 0.2 { times.append(start + 1 + seconds(window - 2)) }
                        if !multiple, times.contains(where: { $0 <= Self.now }) {
                            truth.conversions[metric]![variation]! += 1
                        }
                    }
                    // Events that must not count: before the exposure, after the window, or not
                    // meeting the condition.
                    let miss = uniform() < 0.5 ? Int(uniform() * 3) : nil
                    let before = start - 1 - seconds(Self.day)
                    let after = start + window + 1 + seconds(Self.day)
                    let inside = start + 1 + seconds(window - 2)
                    switch metric {
                    case "opened":
                        for time in times { appEvent(user, "journey_opened", at: time) }
                        switch miss {
                        case 0?: appEvent(user, "journey_opened", at: before)
                        case 1?: appEvent(user, "journey_opened", at: after)
                        case 2?: appEvent(user, "today_opened", at: inside)
                        default: break
                        }
                    case "first_action":
                        for time in times {
                            try analytics(
                                user, "action_completed", at: time, ["type": "save_weight", "first_time": true])
                        }
                        switch miss {
                        case 0?: try analytics(user, "action_completed", at: before, ["first_time": true])
                        case 1?: try analytics(user, "action_completed", at: after, ["first_time": true])
                        case 2?: try analytics(user, "action_completed", at: inside, ["first_time": false])
                        default: break
                        }
                    default:  // shared: app events from the journey screen only
                        for time in times { appEvent(user, "share_tapped", at: time, ["screen": "journey"]) }
                        switch miss {
                        case 0?: appEvent(user, "share_tapped", at: before, ["screen": "journey"])
                        case 1?: appEvent(user, "share_tapped", at: inside, ["screen": "today"])
                        case 2?: try analytics(user, "share_tapped", at: inside, ["screen": "journey"])
                        default: break
                        }
                    }
                }
            }
        }
        // The app events through the one ingest path (the clock after the last of them).
        guard let evaluator = folder.evaluator() else { return }
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(lateWindow: .seconds(60 * 86_400), clock: { Self.now + 10 * Self.day }), cores: 1)
        let sorted = appEvents.sorted { $0.time < $1.time }.map(\.event)
        for start in stride(from: 0, to: sorted.count, by: 500) {
            let results = ingestor.ingest(Array(sorted[start..<min(start + 500, sorted.count)]))
            for result in results where result.status != .accepted {
                Issue.record(
                    "event \(result.eventID ?? "?") not accepted: \(result.code ?? "") \(result.message ?? "")")
            }
        }
    }

    /// The report as of `now`, through an evaluator of the rules of its own.
    func report(now: Double = GeneratedPopulation.now) throws -> ExperimentReport {
        let loaded = folder.load()
        let ruleSet = try #require(loaded.ruleSet)
        let evaluator = try #require(loaded.evaluator)
        let experiment = try #require(ExperimentCatalog(ruleSet: ruleSet)[Self.key])
        return try ExperimentReport(experiment: experiment, store: database.store, evaluator: evaluator, now: now)
    }
}
