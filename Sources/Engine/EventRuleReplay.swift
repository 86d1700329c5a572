import Core
import JQ
import RuleEngine
import Store

/// What the event rules make of a stored event now: each `event_effects` rule evaluated on
/// `{event, dog}` as the ingest path builds it (with today's rules and the dog as it is now),
/// its effects computed and not applied. For `journey explain event`.
public enum EventRuleReplay {
    /// The evaluations, in rule order, each with its variant, input, outputs and trace; and
    /// the refusal a rule raised, if one did.
    public static func run(_ stored: StoredEvent, store: any StoreReader, evaluator: RuleEvaluator) throws -> (
        entries: [DecisionLog.Entry], refusal: String?
    ) {
        guard case .object(let payload) = stored.payload else { return ([], "the stored payload is not an object") }
        let event = Event(
            eventID: stored.eventID, userID: stored.userID, type: stored.type, occurredAt: stored.occurredAt,
            occurredAtText: stored.occurredAtText, dogID: stored.dogID, payload: payload,
            receivedAt: stored.receivedAt)
        let dog = try stored.dogID.flatMap { try store.dog($0) }
        let context = ConsumerContext(event: event, dog: dog, dogInput: nil, store: store, evaluator: evaluator)
        let log = DecisionLog(detailed: true)
        evaluator.decisionLog = log
        defer { evaluator.decisionLog = nil }
        var refusal: String?
        for consumer in EventRulesConsumer.all(in: evaluator.ruleSet) {
            do {
                _ = try consumer.effects(of: event, in: context)
            } catch {
                refusal = refusal ?? "\(consumer.name): \(error)"
            }
        }
        return (log.entries, refusal)
    }
}
