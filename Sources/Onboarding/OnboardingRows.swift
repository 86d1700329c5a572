/// Where a user is in one onboarding flow (a flow key is the flow id and its major version).
public struct OnboardingFlowProgress: Sendable, Equatable {
    public var flow: String
    public var variant: String
    /// The full version last seen.
    public var version: String
    public var startedAt: Double
    /// Completed or skipped steps, with when.
    public var steps: [String: OnboardingStepProgress]
    /// When each step was first shown.
    public var shownAt: [String: Double]

    public init(
        flow: String, variant: String, version: String, startedAt: Double,
        steps: [String: OnboardingStepProgress] = [:], shownAt: [String: Double] = [:]
    ) {
        self.flow = flow
        self.variant = variant
        self.version = version
        self.startedAt = startedAt
        self.steps = steps
        self.shownAt = shownAt
    }
}

/// A completed (or skipped) onboarding step.
public struct OnboardingStepProgress: Sendable, Equatable {
    public var completedAt: Double
    public var skipped: Bool

    public init(completedAt: Double, skipped: Bool) {
        self.completedAt = completedAt
        self.skipped = skipped
    }
}
