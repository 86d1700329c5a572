/// A user's participation in a challenge (or a recurring challenge's instance).
public struct ChallengeParticipation: Sendable, Equatable {
    public var challengeID: String
    public var userID: String
    /// The side in a head-to-head challenge.
    public var team: String?
    public var value: Double
    public var joinedAt: Double?
    public var completedAt: Double?

    public init(
        challengeID: String, userID: String, team: String? = nil, value: Double, joinedAt: Double?, completedAt: Double?
    ) {
        self.challengeID = challengeID
        self.userID = userID
        self.team = team
        self.value = value
        self.joinedAt = joinedAt
        self.completedAt = completedAt
    }
}

/// A challenge's running total, kept as events count (no scan of participants): for everyone
/// (`team` empty) and per head-to-head side.
public struct ChallengeTotal: Sendable, Equatable {
    public var team: String
    public var value: Double
    public var participants: Int
    /// When a community challenge's group reached the target.
    public var completedAt: Double?

    public init(team: String, value: Double, participants: Int, completedAt: Double? = nil) {
        self.team = team
        self.value = value
        self.participants = participants
        self.completedAt = completedAt
    }
}

/// One line of a challenge's activity feed.
public struct ChallengeFeedItem: Sendable, Equatable {
    public var userID: String
    /// `joined`, `progress`, `completed`.
    public var action: String
    public var value: Double?
    public var occurredAt: Double

    public init(userID: String, action: String, value: Double?, occurredAt: Double) {
        self.userID = userID
        self.action = action
        self.value = value
        self.occurredAt = occurredAt
    }
}
