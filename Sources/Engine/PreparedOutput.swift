import Core
import RuleEngine

/// One consumer's output as the event row keeps it: its effects, each as JSON and as compact
/// text, and its origin's text. The threads that compute pure consumers ahead prepare it too,
/// so the writer only joins the pieces.
struct PreparedOutput: Sendable {
    var effects: [Effect]
    var json: [JSON]
    var texts: [String]
    /// The ``EffectOrigin`` of every effect, as compact JSON text.
    var origin: String

    init(_ output: ConsumerOutput, consumer: String, origins: OriginTexts) {
        effects = output.effects
        json = output.effects.map(\.json)
        texts = json.map(\.compactText)
        origin = output.effects.isEmpty ? "" : origins.text(consumer: consumer, rules: output.rules)
    }
}

/// Origins' JSON text by consumer and rules: they repeat from event to event, so each is
/// printed once. One per thread.
final class OriginTexts {
    private struct Key: Hashable {
        var consumer: String
        var rules: [Rule]
    }
    private struct Rule: Hashable {
        var rule: String
        var variant: String
        var experiment: String?
        var error: String?
    }
    private var texts: [Key: String] = [:]
    /// The texts given last, one per consumer, checked before `texts`: an event's consumers
    /// mostly evaluate the same rules with the same variants as for the event before.
    private var recent: [(consumer: String, rules: [Rule], text: String)] = []

    func text(consumer: String, rules: [DecisionLog.Entry]) -> String {
        if let hit = recent.firstIndex(where: { $0.consumer == consumer }),
            Self.same(recent[hit].rules, rules)
        {
            return recent[hit].text
        }
        let key = Key(
            consumer: consumer,
            rules: rules.map { Rule(rule: $0.rule, variant: $0.variant, experiment: $0.experiment, error: $0.error) })
        let text = texts[key] ?? EffectOrigin(consumer: consumer, rules: rules).json.compactText
        if texts.count > 10_000 { texts.removeAll() }
        texts[key] = text
        if let hit = recent.firstIndex(where: { $0.consumer == consumer }) {
            recent[hit] = (consumer, key.rules, text)
        } else if recent.count < 16 {
            recent.append((consumer, key.rules, text))
        }
        return text
    }

    private static func same(_ kept: [Rule], _ rules: [DecisionLog.Entry]) -> Bool {
        kept.count == rules.count
            && zip(kept, rules).allSatisfy {
                $0.rule == $1.rule && $0.variant == $1.variant && $0.experiment == $1.experiment && $0.error == $1.error
            }
    }
}
