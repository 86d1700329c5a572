import Core

/// A user's participation in a challenge (or a recurring challenge's instance).
public struct ChallengeParticipation: Sendable, Equatable {
    public var challengeID: String
    public var userID: String
    /// The side in a head-to-head challenge.
    public var team: String?
    public var value: Double
    public var joinedAt: Double?
    public var completedAt: Double?
    /// The latest `occurred_at` counted or joined at: an event after it arrived in order.
    public var updatedAt: Double

    public init(
        challengeID: String, userID: String, team: String? = nil, value: Double, joinedAt: Double?,
        completedAt: Double?,
        updatedAt: Double = 0
    ) {
        self.updatedAt = updatedAt
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

/// What one event contributed to a participation. A participation's value is the sum of its
/// contributions, and its completion is where their running sum, in `occurred_at` order
/// (ties by `event_key`), first completes it: both follow from the set of events, never from
/// the order they arrived in.
public struct ChallengeContribution: Sendable, Equatable {
    /// The user's `event_id` of the event that contributed.
    public var eventKey: String
    public var occurredAt: Double
    public var delta: Double
    /// The event as the challenge's custom completion rule sees it (with its facts); kept only
    /// for a challenge with such a rule.
    public var input: JSON?
    /// The event's row, when it is stored.
    public var eventRow: Int64?

    public init(eventKey: String, occurredAt: Double, delta: Double, input: JSON? = nil, eventRow: Int64? = nil) {
        self.eventKey = eventKey
        self.occurredAt = occurredAt
        self.delta = delta
        self.input = input
        self.eventRow = eventRow
    }

    /// Time order: `occurred_at`, then the event key.
    public static func inTimeOrder(_ a: ChallengeContribution, _ b: ChallengeContribution) -> Bool {
        (a.occurredAt, a.eventKey) < (b.occurredAt, b.eventKey)
    }
}
