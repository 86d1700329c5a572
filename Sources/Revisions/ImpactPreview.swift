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
        // The events are replayed on other threads while the views are compared here.
        let replay = try startReplay(active: active.ruleSet, candidate: candidate.ruleSet, since: since, now: now)
        engine.prepare(active, reader: store)
        engine.prepare(candidate, reader: store)
        let dogs = try store.rows(
            "SELECT DISTINCT dog_id FROM events WHERE dog_id IS NOT NULL AND occurred_at >= ? ORDER BY dog_id",
            [.real(since)]
        ) { $0.text(0) ?? "" }
        var report = ImpactReport(
            active: active.ruleSet.revision, candidate: candidate.ruleSet.revision, dogs: dogs.count)
        // Should a view fail, the replays are waited for before the error goes up.
        defer { _ = replay?.sides.finish() }
        let logs = [DecisionLog(detailed: true, keepsInputs: false), DecisionLog(detailed: true, keepsInputs: false)]
        active.decisionLog = logs[0]
        candidate.decisionLog = logs[1]
        defer { (active.decisionLog, candidate.decisionLog) = (nil, nil) }
        for dog in dogs {
            for log in logs { log.removeAll() }
            let both = try engine.previewDecisions(dog: dog, store: store, evaluators: [active, candidate], now: now)
            let (before, after) = (both[0], both[1])
            let (beforeLog, afterLog) = (logs[0].entries, logs[1].entries)
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
        report.events = replay?.finish()
        report.seconds = (ContinuousClock.now - started).seconds
        return report
    }

    /// The window's events being replayed under both rule sets on copies of the store as it
    /// was at the window's start; nil for a store that cannot make such a copy.
    private func startReplay(active: RuleSet, candidate: RuleSet, since: Double, now: Double) throws
        -> RunningReplay?
    {
        guard let copying = store as? any ScratchCopying else { return nil }
        let started = ContinuousClock.now
        let events = try store.events(since: since)
        let first = try copying.scratchCopy(before: since)
        let sides = ReplaySides(
            events: events, ruleSets: [active, candidate], scratches: [first, try first.copy()], engine: engine,
            now: now)
        sides.start()
        return RunningReplay(sides: sides, started: started, examples: examples)
    }

    /// The event replays under way.
    private struct RunningReplay {
        var sides: ReplaySides
        var started: ContinuousClock.Instant
        var examples: Int

        func finish() -> EventImpact {
            let replays = sides.finish()
            var impact = EventImpact.compare(
                sides.events, active: replays[0], candidate: replays[1], examples: examples)
            impact.seconds = (ContinuousClock.now - started).seconds
            return impact
        }
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
            "event_impact": events?.json ?? .null,
            "active_revision_id": .string(active), "candidate": .string(candidate),
            "dog_count": .number(Double(dogs)),
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
                                        ["dog_id": .string($0.dog), "before": $0.before, "after": $0.after]
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
