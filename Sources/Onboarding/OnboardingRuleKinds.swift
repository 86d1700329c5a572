import Core
import RuleEngine

/// The onboarding engine's rule kind.
extension RuleKind {
    public static let onboardingTrigger = RuleKind(
        name: "onboarding_trigger",
        summary: "Decides whether an app event completes the current onboarding step.",
        inputDescription: "{event, step, state}",
        requiredMembers: [Member("event", .object)], inputIsObject: true,
        outputDescription: "a boolean; no output means false",
        cardinality: .atMostOne(whenEmpty: false),
        checkOutput: { $0.boolValue == nil ? "expected a boolean" : nil },
        eventTypePath: ["event", "type"])
}
