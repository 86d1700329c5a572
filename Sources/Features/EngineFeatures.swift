import Challenges
import CheckPlugins
import Engine
import Experiments
import Habits
import Journey
import Onboarding
import RuleEngine
import Store

/// Every feature of the engine put together, for the CLI, the service and the benchmarks: the
/// document kinds the rule loader reads, the ingest consumers, and the experiments that choose
/// rule variants.
public enum EngineFeatures {
    /// Document kinds beside rules: check plugins, catalogs, wording, experiments, onboarding flows.
    public static func documentKinds(swiftPlugins: [any CheckPlugin] = []) -> [any DocumentKind] {
        JourneyDocuments.kinds(swiftPlugins: swiftPlugins) + [
            ExperimentsDocumentKind(), OnboardingDocumentKind(), ChallengeDocumentKind(),
        ]
    }

    /// The ingest consumers for `ruleSet`: registration, `event_effects` rules, the Dog Journey,
    /// onboarding, habit trackers, challenges (after the others, so that
    /// a challenge can count what they accepted).
    public static func consumers(for ruleSet: RuleSet, swiftPlugins: [any CheckPlugin] = []) -> [any EventConsumer] {
        JourneyFeature.consumers(for: ruleSet, swiftPlugins: swiftPlugins)
            + [
                OnboardingConsumer(flows: OnboardingFlows(ruleSet: ruleSet)), HabitsConsumer(),
                ChallengesConsumer(catalog: ChallengeCatalog(ruleSet: ruleSet), ruleSet: ruleSet),
            ]
    }

    /// Lets `evaluator` choose the variants of rules with an experiment by sticky assignment
    /// kept in `store` (and returns the assigner).
    @discardableResult
    public static func attachExperiments(to evaluator: RuleEvaluator, store: any Store) -> ExperimentAssigner {
        let assigner = ExperimentAssigner(catalog: ExperimentCatalog(ruleSet: evaluator.ruleSet), store: store)
        evaluator.variantChooser = assigner
        return assigner
    }
}
