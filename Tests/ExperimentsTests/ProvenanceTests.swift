import Core
import Engine
import Experiments
import Features
import Foundation
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// Every stored effect keeps what made it: the revision, the consumer, and each rule it
/// evaluated with the variant (and experiment) — computed serially or ahead on other cores.
struct ProvenanceTests {
    static let experimentRule = """
        rule: cheer
        kind: event_effects
        events: [walked]
        experiment: greeting-test
        variants:
          control: '[{type: "analytics_event", name: "cheered", properties: {style: "plain"}}]'
          warm: '[{type: "analytics_event", name: "cheered", properties: {style: "warm"}}]'
        """

    static let pureRule = """
        rule: count_walk
        kind: event_effects
        events: [walked]
        expr: '[{type: "analytics_event", name: "walk_counted", properties: {}}]'
        """

    static func folder() -> RulesFolder {
        RulesFolder([
            "experiments.yaml": AssignmentTests.experiments(), "cheer.yaml": experimentRule,
            "count_walk.yaml": pureRule,
        ])
    }

    @Test func effectsKeepTheRevisionRuleAndVariant() throws {
        guard let evaluator = Self.folder().evaluator() else { return }
        let engine = Engine(evaluator: evaluator)
        let store = engine.database.store
        let assigner = ExperimentAssigner(
            catalog: ExperimentCatalog(ruleSet: evaluator.ruleSet), readingFrom: store)
        var variants = Set<String>()
        for n in 0..<30 {
            let user = "user-\(n)"
            let result = engine.send(user, "walked")
            #expect(result.status == .accepted, "\(result)")
            let stored = try #require(try store.event(user: user, eventID: result.eventID ?? ""))
            #expect(stored.ruleRevision == evaluator.ruleSet.revision)
            let variation = try #require(
                try assigner.assignment(
                    "greeting-test", subject: ExperimentSubject(userID: user), now: engine.clock.now
                )
                .variation)
            variants.insert(variation)
            let origins = try #require(stored.provenance.arrayValue)
            #expect(origins.count == stored.outcome.arrayValue?.count, "one origin per effect")
            let cheer = origins.first { $0["consumer"] == "rule:cheer" }
            #expect(
                cheer?["rules"] == [["rule": "cheer", "variant": .string(variation), "experiment": "greeting-test"]],
                "\(stored.provenance)")
            let counted = origins.first { $0["consumer"] == "rule:count_walk" }
            #expect(counted?["rules"] == [["rule": "count_walk", "variant": "default"]])
            // The effect's own style follows the same variant.
            let styles = stored.outcome.arrayValue?.compactMap { $0["properties"]?["style"]?.stringValue }
            #expect(styles == [variation == "warm" ? "warm" : "plain"])
        }
        #expect(variants == ["control", "warm"], "both variations were seen")
        // An event no consumer had effects for keeps no provenance, only the revision.
        let quiet = engine.send("user-0", "slept")
        let stored = try #require(try store.event(user: "user-0", eventID: quiet.eventID ?? ""))
        #expect(stored.provenance == .null && stored.ruleRevision == evaluator.ruleSet.revision)
    }

    /// A batch big enough to be computed ahead on another core keeps the same provenance as
    /// one computed serially.
    @Test func precomputedEffectsKeepTheirRules() throws {
        guard let evaluator = Self.folder().evaluator() else { return }
        let database = TestDatabase(schema: Features.all.schema)
        let ingestor = Features.all.makeIngestor(store: database.store, evaluator: evaluator, cores: 2)
        let occurredAt = Timestamp.format(Date().timeIntervalSince1970 - 60)
        let batch: [JSON] = (0..<64).map { n in
            [
                "event_id": .string("e-\(n)"), "user_id": .string("user-\(n % 8)"), "type": "walked",
                "occurred_at": .string(occurredAt), "payload": [:],
            ]
        }
        let results = ingestor.ingest(batch)
        #expect(results.allSatisfy { $0.status == .accepted }, "\(results.filter { $0.status != .accepted })")
        for n in 0..<64 {
            let stored = try #require(try database.store.event(user: "user-\(n % 8)", eventID: "e-\(n)"))
            let counted = stored.provenance.arrayValue?.first { $0["consumer"] == "rule:count_walk" }
            #expect(counted?["rules"] == [["rule": "count_walk", "variant": "default"]], "\(stored.provenance)")
        }
    }
}
