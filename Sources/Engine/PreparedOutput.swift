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

        init(_ entry: DecisionLog.Entry) {
            (rule, variant, experiment, error) = (entry.rule, entry.variant, entry.experiment, entry.error)
        }

        func matches(_ entry: DecisionLog.Entry) -> Bool {
            rule == entry.rule && variant == entry.variant && experiment == entry.experiment && error == entry.error
        }
    }
    private var texts: [Key: String] = [:]
    /// The texts given last, one per consumer, checked before `texts`: an event's consumers
    /// mostly evaluate the same rules with the same variants as for the event before.
    private var recent: [(consumer: String, rules: [Rule], text: String)] = []

    func text(consumer: String, rules: [DecisionLog.Entry]) -> String {
        let hit = recent.firstIndex { $0.consumer == consumer }
        if let hit, recent[hit].rules.elementsEqual(rules, by: { $0.matches($1) }) { return recent[hit].text }
        let key = Key(consumer: consumer, rules: rules.map(Rule.init))
        let text: String
        if let known = texts[key] {
            text = known
        } else {
            text = EffectOrigin(consumer: consumer, rules: rules).json.compactText
            if texts.count > 10_000 { texts.removeAll() }
            texts[key] = text
        }
        if let hit {
            recent[hit] = (consumer, key.rules, text)
        } else if recent.count < 16 {
            recent.append((consumer, key.rules, text))
        }
        return text
    }
}
