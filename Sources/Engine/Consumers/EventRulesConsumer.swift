import JQ
import RuleEngine

/// Runs one `event_effects` rule on every event: the rule reads `{event, dog}` and returns
/// the effects as objects, so product managers decide what app events lead to (records,
/// reminders, analytics, rewards) without a redeploy.
///
/// A rule that raises `error({code: "invalid", message: "…"})` refuses the event with that
/// code and message; any other failure refuses it as `consumer_failed`, naming the rule.
public struct EventRulesConsumer: EventConsumer {
    public let rule: RuleDefinition
    /// `rule:<id>`, made once: it names every effect's origin.
    public let name: String
    /// A rule reads only `{event, dog}`.
    /// Pure unless the rule has an experiment (its assignment is read and kept in the store).
    public var isPure: Bool { rule.experiment == nil }
    /// The rule's `events`, checked here too so that other events do not even build the input.
    private let events: Set<String>?
    /// The effects the rule may produce.
    private let effectTypes: EffectTypes

    public init(rule: RuleDefinition, effectTypes: EffectTypes = .engine) {
        self.rule = rule
        self.name = "rule:\(rule.id)"
        self.events = rule.events.map(Set.init)
        self.effectTypes = effectTypes
    }

    /// One consumer per `event_effects` rule of `ruleSet`, in rule order.
    public static func all(in ruleSet: RuleSet, effectTypes: EffectTypes = .engine) -> [EventRulesConsumer] {
        ruleSet.rules.filter { $0.kind.name == "event_effects" }.map {
            EventRulesConsumer(rule: $0, effectTypes: effectTypes)
        }
    }

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        if let events, !events.contains(event.type) { return [] }
        let result: RuleResult
        do {
            result = try context.evaluator.evaluate(
                rule, input: context.ruleInput,
                options: EvaluationOptions(
                    now: event.occurredAt, subject: ExperimentSubject(userID: event.userID, dogID: event.dogID)))
        } catch {
            if error.code == .runtimeError, case .object(let object)? = error.value,
                let code = object["code"]?.stringValue, let message = object["message"]?.stringValue
            {
                throw Rejection(Rejection.Code(rawValue: code), message)
            }
            throw Rejection(.consumerFailed, error.message)
        }
        guard case .array(let objects)? = result.value else { return [] }
        var effects: [Effect] = []
        effects.reserveCapacity(objects.count)
        for object in objects {
            do {
                effects.append(
                    try Effect(
                        ruleOutput: object, event: event, ruleRevision: context.evaluator.ruleSet.revision,
                        types: effectTypes))
            } catch {
                throw Rejection(
                    .consumerFailed, "rule `\(rule.id)` gave an effect the engine cannot use: \(error.message)")
            }
        }
        return effects
    }
}
