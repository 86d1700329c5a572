import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// One loaded, tested rule set with what serves it on one thread: its evaluator (the compiled
/// programs) and the ingest path over the worker's store.
///
/// Built on any thread, then handed to the request thread, which alone uses it from then on
/// (libjq states belong to one thread at a time). Not `Sendable` for that reason; the hand-over
/// goes through ``GenerationHandOff``.
final class RulesGeneration {
    let ruleSet: RuleSet
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    /// The snapshot it was loaded from.
    let snapshot: RuleSnapshots.Snapshot

    init(
        ruleSet: RuleSet, evaluator: RuleEvaluator, store: any Store, snapshot: RuleSnapshots.Snapshot,
        features: FeatureSet, clock: @escaping @Sendable () -> Double
    ) {
        self.ruleSet = ruleSet
        self.evaluator = evaluator
        self.snapshot = snapshot
        self.ingestor = features.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: clock), cores: 1,
            computesBeforeWriting: true)
    }
}

/// Passes a generation from the thread that loaded it to the request thread.
///
/// `@unchecked Sendable`: the generation inside is touched by one thread at a time — the
/// loader until it puts it here, the request thread after it takes it out — and the lock
/// orders the two.
final class GenerationHandOff: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: RulesGeneration?

    func put(_ generation: RulesGeneration) {
        lock.lock()
        waiting = generation
        lock.unlock()
    }

    func take() -> RulesGeneration? {
        lock.lock()
        defer { lock.unlock() }
        let generation = waiting
        waiting = nil
        return generation
    }
}
