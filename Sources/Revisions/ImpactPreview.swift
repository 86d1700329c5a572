import Core
import FeatureKit
import Foundation
import RuleEngine
import Store

/// What a candidate rule set would change, before it is published: for every dog active in a
/// window, what its screens decide under the active rules and under the candidate (both read
/// the store; nothing is written), compared decision by decision; and the window's events
/// replayed under both on scratch copies of the store (``EventImpact``).
public struct ImpactPreview {
    public var store: any StoreReader
    public var engine: FeatureSet
    /// At most this many examples per decision.
    public var examples = 5

    public init(store: any StoreReader, engine: FeatureSet) {
        self.store = store
        self.engine = engine
    }

    /// Compares `active` with `candidate` for the dogs with an event since `since`.
    public func run(active: RuleEvaluator, candidate: RuleEvaluator, since: Double, now: Double) throws -> ImpactReport
    {
        let started = ContinuousClock.now
        engine.prepare(active, reader: store)
        engine.prepare(candidate, reader: store)
        let dogs = try store.rows(
            "SELECT DISTINCT dog_id FROM events WHERE dog_id IS NOT NULL AND occurred_at >= ? ORDER BY dog_id",
            [.real(since)]
        ) { $0.text(0) ?? "" }
        var report = ImpactReport(
            active: active.ruleSet.revision, candidate: candidate.ruleSet.revision, dogs: dogs.count)
        for dog in dogs {
            let (before, beforeLog) = try decisions(dog, active, now: now)
            let (after, afterLog) = try decisions(dog, candidate, now: now)
            // The rules whose variant or outputs differ made the difference.
            var differing: Set<String> = []
            for entry in afterLog
            where !beforeLog.contains(where: {
                $0.rule == entry.rule && $0.variant == entry.variant && $0.outputs == entry.outputs
            }) {
                differing.insert("\(entry.rule) (\(entry.variant))")
            }
            for key in differing { report.rules[key, default: 0] += 1 }
            for key in Set(before.keys).union(after.keys) {
                report.decisions += 1
                let (old, new) = (before[key] ?? .null, after[key] ?? .null)
                guard old != new else { continue }
                var change = report.changed[key] ?? ImpactReport.Change()
                change.count += 1
                if change.examples.count < examples {
                    change.examples.append(ImpactReport.Example(dog: dog, before: old, after: new))
                }
                report.changed[key] = change
            }
        }
        report.events = try replayEvents(active: active, candidate: candidate, since: since, now: now)
        report.seconds = (ContinuousClock.now - started).seconds
        return report
    }

    /// The window's events replayed under both rule sets on copies of the store as it was at
    /// the window's start; nil for a store that cannot make such a copy.
    private func replayEvents(active: RuleEvaluator, candidate: RuleEvaluator, since: Double, now: Double) throws
        -> EventImpact?
    {
        guard let copying = store as? any ScratchCopying else { return nil }
        let started = ContinuousClock.now
        let events = try store.events(since: since)
        let sides = ReplaySides(
            events: events, evaluators: [active, candidate],
            scratches: try [copying.scratchCopy(before: since), copying.scratchCopy(before: since)], engine: engine,
            now: now)
        let replays = sides.run()
        var impact = EventImpact.compare(events, active: replays[0], candidate: replays[1], examples: examples)
        impact.seconds = (ContinuousClock.now - started).seconds
        return impact
    }

    /// `dog`'s decisions under `evaluator`, with the evaluations that made them.
    private func decisions(_ dog: String, _ evaluator: RuleEvaluator, now: Double) throws -> (
        JSONObject, [DecisionLog.Entry]
    ) {
        let log = DecisionLog(detailed: true, keepsInputs: false)
        evaluator.decisionLog = log
        defer { evaluator.decisionLog = nil }
        let decisions = try engine.previewDecisions(dog: dog, store: store, evaluator: evaluator, now: now)
        return (decisions, log.entries)
    }
}

/// What ``ImpactPreview`` found.
public struct ImpactReport: Sendable {
    public struct Example: Sendable {
        public var dog: String
        public var before: JSON
        public var after: JSON
    }

    public struct Change: Sendable {
        public var count = 0
        public var examples: [Example] = []
    }

    public var active: String
    public var candidate: String
    /// Dogs evaluated (active in the window).
    public var dogs: Int
    /// Decisions compared (every key of every dog).
    public var decisions = 0
    /// By decision key (`today.recommended`): how many dogs it changes for, with examples.
    public var changed: [String: Change] = [:]
    /// By rule and variant (`recommendation (by-branch)`): for how many dogs its outputs differ.
    public var rules: [String: Int] = [:]
    /// The window's events replayed under both (nil when the store cannot be copied).
    public var events: EventImpact?
    public var seconds = 0.0

    /// Decisions that differ, over all keys.
    public var changedCount: Int { changed.values.reduce(0) { $0 + $1.count } }

    public var json: JSON {
        [
            "events": events?.json ?? .null,
            "active": .string(active), "candidate": .string(candidate), "dogs": .number(Double(dogs)),
            "decisions": .number(Double(decisions)), "changed": .number(Double(changedCount)),
            "seconds": .number((seconds * 1000).rounded() / 1000),
            "by_rule": .object(
                JSONObject(rules.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })),
            "by_decision": .object(
                JSONObject(
                    changed.sorted { $0.key < $1.key }.map { key, change in
                        (
                            key,
                            [
                                "changed": .number(Double(change.count)),
                                "share": .number(
                                    dogs == 0 ? 0 : (Double(change.count) / Double(dogs) * 1000).rounded() / 1000),
                                "examples": .array(
                                    change.examples.map {
                                        ["dog": .string($0.dog), "before": $0.before, "after": $0.after]
                                    }),
                            ]
                        )
                    })),
        ]
    }

    public var text: String {
        var text =
            "revision \(active.prefix(12)) → \(candidate.prefix(12)): \(dogs) dog\(dogs == 1 ? "" : "s") active in the window, \(decisions) decisions, \(changedCount) changed (\(String(format: "%.2f", seconds)) s)\n"
        for (rule, dogs) in rules.sorted(by: { $0.key < $1.key }) {
            text += "rule \(rule): its outputs differ for \(dogs) dog\(dogs == 1 ? "" : "s")\n"
        }
        for (key, change) in changed.sorted(by: { $0.key < $1.key }) {
            let share = dogs == 0 ? 0 : Double(change.count) / Double(dogs) * 100
            text += "\n\(key): \(change.count) dog\(change.count == 1 ? "" : "s") (\(String(format: "%.1f", share))%)\n"
            for example in change.examples {
                text += "  \(example.dog): \(example.before.compactText) → \(example.after.compactText)\n"
            }
        }
        if let events { text += "\n" + events.text }
        return text
    }
}
