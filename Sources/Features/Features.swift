import Challenges
import CheckPlugins
import Console
import Experiments
import FeatureKit
import Habits
import Journey
import Onboarding
import Revisions

/// The one place that lists the engine's features, in the order their consumers run: what the
/// CLI, the service, the benchmarks and every test harness build the engine from.
public enum Features {
    /// Every feature; `swiftPlugins` are check plugins written in Swift (tests use them).
    public static func standard(swiftPlugins: [any CheckPlugin] = []) -> FeatureSet {
        FeatureSet([
            CheckPluginsFeature(),
            JourneyFeature(swiftPlugins: swiftPlugins),
            ExperimentsFeature(),
            OnboardingFeature(),
            HabitsFeature(),
            ChallengesFeature(),
            RevisionsFeature(),
            ConsoleFeature(),
        ])
    }

    /// Every feature, with the YAML check plugins only.
    public static let all = standard()
}
