import CheckPlugins
import Engine
import RuleEngine

/// The Dog Journey plugged into the engine.
public enum JourneyFeature {
    /// Every consumer of the engine with the Dog Journey: registration, the `event_effects`
    /// rules, then the journey (which builds on registration's effects).
    public static func consumers(for ruleSet: RuleSet, swiftPlugins: [any CheckPlugin] = []) -> [any EventConsumer] {
        Ingestor.defaultConsumers(for: ruleSet) + [JourneyConsumer(ruleSet: ruleSet, swiftPlugins: swiftPlugins)]
    }
}
