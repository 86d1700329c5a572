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
