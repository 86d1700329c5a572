/// A subject's kept assignment to an experiment (sticky until the bucket version is raised).
public struct StoredAssignment: Sendable, Equatable {
    /// `user_id:U` or `dog_id:D`: the hash attribute and its value.
    public var subject: String
    public var experiment: String
    /// The user it belongs to (for analytics), when known.
    public var userID: String?
    public var variation: String
    public var bucketVersion: Int
    /// The hash that gave the variation.
    public var hashValue: Double
    public var assignedAt: Double
    /// When the variation was first used (the `experiment_viewed` analytics event).
    public var viewedAt: Double?

    public init(
        subject: String, experiment: String, userID: String?, variation: String, bucketVersion: Int,
        hashValue: Double, assignedAt: Double, viewedAt: Double? = nil
    ) {
        self.subject = subject
        self.experiment = experiment
        self.userID = userID
        self.variation = variation
        self.bucketVersion = bucketVersion
        self.hashValue = hashValue
        self.assignedAt = assignedAt
        self.viewedAt = viewedAt
    }
}

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
