import Core

/// Facts a feature established for earlier events, made again by a late event (a check-in of
/// an earlier day lengthens the streak of the check-ins after it). Features whose rules read
/// those facts (`facts.<feature>` of an event) take them from here, within the same event,
/// before the store has them.
public protocol FactsRevision: FeatureEffect {
    /// The feature whose facts these are (`habits`).
    var feature: String { get }
    /// The new facts, by the `event_id` of the event they are of.
    var factsByEvent: [String: JSON] { get }
}

extension ConsumerContext {
    /// The facts of `feature` that consumers before this one made again during this event.
    public func revisedFacts(of feature: String) -> [String: JSON] {
        var facts: [String: JSON] = [:]
        for case .feature(let effect) in effectsSoFar {
            guard let revision = effect as? any FactsRevision, revision.feature == feature else { continue }
            facts.merge(revision.factsByEvent) { _, new in new }
        }
        return facts
    }
}
