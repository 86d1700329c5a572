import Core
import RuleEngine

/// What made an effect: the consumer that returned it and the rules (with the variant and
/// experiment of each) that the consumer evaluated for the event. Kept with the event, one
/// per effect in the order of its outcome (``StoredEvent/provenance``), beside the revision.
public struct EffectOrigin: Sendable, Equatable {
    public var consumer: String
    public var rules: [DecisionLog.Entry]

    public init(consumer: String, rules: [DecisionLog.Entry]) {
        self.consumer = consumer
        self.rules = rules
    }

    /// `{consumer, rules: [{rule, variant, experiment?}]}`.
    public var json: JSON { ["consumer": .string(consumer), "rules": DecisionLog.rulesJSON(rules)] }
}

/// What one consumer gave for one event: its effects, and the rules it evaluated for them.
struct ConsumerOutput: Sendable {
    var effects: [Effect]
    var rules: [DecisionLog.Entry]
}

extension EventConsumer {
    /// The effects of `event`, with the rules evaluated for them (logged in `log`, which is
    /// emptied first; the context's evaluator logs to it only for this call).
    func output(of event: Event, in context: ConsumerContext, log: DecisionLog) throws -> ConsumerOutput {
        let evaluator = context.evaluator
        let outer = evaluator.decisionLog
        evaluator.decisionLog = log
        defer { evaluator.decisionLog = outer }
        log.removeAll()
        let effects = try effects(of: event, in: context)
        return ConsumerOutput(effects: effects, rules: log.entries)
    }
}
