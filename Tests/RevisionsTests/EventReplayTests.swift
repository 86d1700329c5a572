import Core
import Engine
import Features
import Foundation
import RevisionStore
import Revisions
import RuleEngine
import Store
import TestSupport
import Testing

/// The events half of the impact preview, on a generated population: 40 owners with a dog
/// each and weights over three weeks. The window's events are replayed under the active rules
/// and under the candidate on scratch copies of the store; the real store is never written.
@Suite struct EventReplayTests {
    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!
    static let since = now - 7 * 86_400

    struct Population {
        let database = TestDatabase(schema: Features.all.schema)
        /// The weights saved in the window, by event, with their kg.
        var windowWeights: [(user: String, eventID: String, kg: Double)] = []
        var windowEvents = 0
    }

    /// Owners `owner-0…39`, each registering a dog 20 days ago and saving a weight every 1–3
    /// days since (kg from a seeded generator), all through the ingest path.
    static func population() throws -> Population {
        var population = Population()
        let evaluator = try #require(
            Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
                .evaluator)
        var clock = now - 20 * 86_400
        let ingestor = Features.all.makeIngestor(
            store: population.database.store, evaluator: evaluator,
            policy: IngestPolicy(lateWindow: .seconds(60 * 86_400), clock: { now }), cores: 1)
        var random = SplitMix64(seed: 17)
        var events: [JSON] = []
        for owner in 0..<40 {
            let user = "owner-\(owner)"
            events.append([
                "event_id": "reg", "user_id": .string(user), "type": "dog_registered",
                "dog_id": .string("dog-\(owner)"),
                "occurred_at": .string(Timestamp.format(clock)),
                "payload": ["name": "Rex", "age_range": "4-8m", "timezone": "Europe/Berlin"],
            ])
            var at = clock + 3_600
            var n = 0
            while at < now - 3_600 {
                let kg = 8 + Double(random.next() % 100) / 10
                let id = "w-\(n)"
                events.append([
                    "event_id": .string(id), "user_id": .string(user), "type": "weight_saved",
                    "dog_id": .string("dog-\(owner)"), "occurred_at": .string(Timestamp.format(at)),
                    "payload": ["kg": .number(kg)],
                ])
                if at >= since {
                    population.windowWeights.append((user, id, kg))
                    population.windowEvents += 1
                }
                n += 1
                at += Double(1 + random.next() % 3) * 86_400
            }
        }
        // A dog registered inside the window: its registration is replayed (it builds the dog's
        // journey, evaluating rules that import the rule library).
        events.append([
            "event_id": "reg", "user_id": "owner-late", "type": "dog_registered", "dog_id": "dog-late",
            "occurred_at": .string(Timestamp.format(since + 3_600)),
            "payload": ["name": "Late", "age_range": "4-8m", "timezone": "Europe/Berlin"],
        ])
        population.windowEvents += 1
        clock = now
        let results = ingestor.ingest(events)
        try #require(results.allSatisfy { $0.status == .accepted }, "\(results.first { $0.status != .accepted }!)")
        return population
    }

    /// The bundled rules with `rule` of `Rules/events/reminders.yaml` replaced.
    static func candidate(reminders rule: String?) throws -> RuleEvaluator {
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        if let rule { files["Rules/events/reminders.yaml"] = rule }
        var report = GateReport(revision: "", parent: nil)
        let loaded = RevisionGates(engine: Features.all).load(try RevisionFiles(files), into: &report)
        return try #require(loaded?.evaluator, "\(report.summary)")
    }

    static func reminders(_ expr: String) -> String {
        """
        rule: events.reminders
        kind: event_effects
        events: [weight_saved]
        expr: |
          \(expr)
        """
    }

    static func run(_ population: Population, candidate: RuleEvaluator) throws -> EventImpact {
        let active = try Self.candidate(reminders: nil)
        let report = try ImpactPreview(store: population.database.store, engine: Features.all).run(
            active: active, candidate: candidate, since: since, now: now)
        return try #require(report.events)
    }

    @Test func anUnchangedCandidateChangesNoEffect() throws {
        let population = try Self.population()
        let before = try population.database.count(table: "events")
        let impact = try Self.run(population, candidate: try Self.candidate(reminders: nil))
        #expect(impact.replayed == population.windowEvents && impact.users == 41)
        #expect(impact.changedEvents == 0 && impact.byEffect.isEmpty && impact.refusals.events == 0)
        #expect(impact.storedDiffers.events == 0, "events ingested in order replay to their stored outcome")
        #expect(try population.database.count(table: "events") == before, "the real store is not written")
    }

    /// Reminders after 10 days instead of 14: every weight of the window schedules another one.
    @Test func oneChangedRuleChangesExactlyItsEffects() throws {
        let population = try Self.population()
        let rule = Self.reminders(
            #"[{type: "reminder_scheduled", kind: "weigh_again", due_in: "10d", payload: {dog_name: .dog.name?, last_kg: .event.payload.kg}}]"#
        )
        let impact = try Self.run(population, candidate: try Self.candidate(reminders: rule))
        let weights = population.windowWeights.count
        #expect(weights > 40, "the window has weights")
        #expect(impact.changedEvents == weights)
        let reminders = try #require(impact.byEffect["reminder_scheduled"])
        #expect(reminders.events == weights && reminders.added == weights && reminders.removed == weights)
        #expect(impact.byEffect.keys.sorted() == ["reminder_scheduled"])
        #expect(impact.byConsumer == ["rule:events.reminders": weights])
        let example = try #require(reminders.examples.first)
        #expect(example.consumers == ["rule:events.reminders"])
        let due = { (effects: JSON) in effects[0]?["due_at"]?.stringValue.flatMap(Timestamp.parse) ?? 0 }
        #expect(due(example.before) - due(example.after) == 4 * 86_400, "due four days earlier")
        #expect(reminders.examples.count == 5, "at most five examples")
    }

    /// A rule that refuses heavy dogs' weights: those events are listed as refusals, and only those.
    @Test func aBrokenConsumerListsWhatItRefuses() throws {
        let population = try Self.population()
        let rule = Self.reminders(
            #"if .event.payload.kg > 15 then error({code: "invalid", message: "too heavy"}) else [{type: "reminder_scheduled", kind: "weigh_again", due_in: "14d", payload: {dog_name: .dog.name?, last_kg: .event.payload.kg}}] end"#
        )
        let impact = try Self.run(population, candidate: try Self.candidate(reminders: rule))
        let heavy = population.windowWeights.filter { $0.kg > 15 }
        #expect(!heavy.isEmpty)
        #expect(impact.refusals.events == heavy.count)
        #expect(impact.changedEvents == heavy.count, "the other weights keep their effects")
        let example = try #require(impact.refusals.examples.first)
        #expect(heavy.contains { $0.user == example.user && $0.eventID == example.eventID })
        #expect(example.after["message"]?.stringValue == "too heavy", "\(example.after)")
    }
}
