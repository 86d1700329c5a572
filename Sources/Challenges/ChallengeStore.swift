import Core
import Store

/// The challenges feature's rows: each participation (value, team, join and completion), the
/// running totals of everyone and of each side, the activity feed and the digests sent.
extension StoreReader {
    /// The challenges `user` joined, in the order of their joins (then by id): the order an
    /// event's outcome lists them in, the same on every backend.
    public func challengeParticipations(user: String) throws -> [ChallengeParticipation] {
        var result: [ChallengeParticipation] = []
        try query(
            """
            SELECT \(ParticipationRow.columns) FROM challenge_progress WHERE user_id = ? AND joined_at IS NOT NULL
            ORDER BY joined_at, challenge_id
            """,
            [.text(user)]
        ) { result.append(ParticipationRow.make($0)) }
        return result
    }

    public func challengeParticipation(challenge: String, user: String) throws -> ChallengeParticipation? {
        try first(
            "SELECT \(ParticipationRow.columns) FROM challenge_progress WHERE challenge_id = ? AND user_id = ?",
            [.text(challenge), .text(user)]
        ) { ParticipationRow.make($0) }
    }

    /// A challenge's running totals: everyone (team "") and each head-to-head side.
    public func challengeTotals(challenge: String) throws -> [ChallengeTotal] {
        var totals: [ChallengeTotal] = []
        try query(
            "SELECT team, value, participants, completed_at FROM challenge_totals WHERE challenge_id = ? ORDER BY team",
            [.text(challenge)]
        ) { row in
            totals.append(
                ChallengeTotal(
                    team: row.text(0) ?? "", value: row.real(1), participants: Int(row.integer(2)),
                    completedAt: row.isNull(3) ? nil : row.real(3)))
        }
        return totals
    }

    /// Participants by value, highest first (of one side, or all), at most `limit`.
    public func challengeRanking(challenge: String, team: String?, limit: Int) throws -> [ChallengeParticipation] {
        var result: [ChallengeParticipation] = []
        let filter = team == nil ? "" : " AND team = ?"
        try query(
            """
            SELECT \(ParticipationRow.columns) FROM challenge_progress
            WHERE challenge_id = ? AND joined_at IS NOT NULL\(filter)
            ORDER BY value DESC, joined_at, user_id LIMIT ?
            """, [.text(challenge)] + (team.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(limit))]
        ) {
            result.append(ParticipationRow.make($0))
        }
        return result
    }

    /// The newest `limit` lines of a challenge's activity feed.
    public func challengeFeed(challenge: String, limit: Int) throws -> [ChallengeFeedItem] {
        var items: [ChallengeFeedItem] = []
        try query(
            """
            SELECT user_id, action, value, occurred_at FROM challenge_feed WHERE challenge_id = ?
            ORDER BY occurred_at DESC, id DESC LIMIT ?
            """, [.text(challenge), .integer(Int64(limit))]
        ) { row in
            items.append(
                ChallengeFeedItem(
                    userID: row.text(0) ?? "", action: row.text(1) ?? "", value: row.isNull(2) ? nil : row.real(2),
                    occurredAt: row.real(3)))
        }
        return items
    }

}

extension Store {
    /// Makes `user` a participant of `challenge` (on `team`, for head-to-head); false when they
    /// already were. Counts them in the running totals and the feed.
    public func joinChallenge(challenge: String, user: String, team: String?, at: Double, event: Int64?) throws -> Bool
    {
        let joined = try run(
            """
            INSERT INTO challenge_progress (challenge_id, user_id, value, updated_at, joined_at, team) VALUES (?1, ?2, 0, ?3, ?3, ?4)
            ON CONFLICT (challenge_id, user_id) DO UPDATE SET joined_at = ?3, team = ?4 WHERE challenge_progress.joined_at IS NULL
            """, [.text(challenge), .text(user), .real(at), .optional(team)])
        guard joined > 0 else {
            // Joined already: an earlier join (arriving later) moves the join time back.
            if try run(
                "UPDATE challenge_progress SET joined_at = ? WHERE challenge_id = ? AND user_id = ? AND joined_at > ?",
                [.real(at), .text(challenge), .text(user), .real(at)]) > 0
            {
                try run(
                    "UPDATE challenge_feed SET occurred_at = ? WHERE challenge_id = ? AND user_id = ? AND action = 'joined'",
                    [.real(at), .text(challenge), .text(user)])
            }
            return false
        }
        let value = try challengeParticipation(challenge: challenge, user: user)?.value ?? 0
        for side in team.map({ ["", $0] }) ?? [""] {
            try run(
                """
                INSERT INTO challenge_totals (challenge_id, team, value, participants) VALUES (?1, ?2, ?3, 1)
                ON CONFLICT (challenge_id, team) DO UPDATE
                SET participants = challenge_totals.participants + 1, value = challenge_totals.value + ?3
                """, [.text(challenge), .text(side), .real(value)])
        }
        try appendFeed(challenge: challenge, user: user, action: "joined", value: nil, at: at, event: event)
        return true
    }

    private func addToTotals(challenge: String, user: String, delta: Double) throws {
        guard let participation = try challengeParticipation(challenge: challenge, user: user),
            participation.joinedAt != nil
        else { return }
        for side in participation.team.map({ ["", $0] }) ?? [""] {
            try run(
                "UPDATE challenge_totals SET value = value + ? WHERE challenge_id = ? AND team = ?",
                [.real(delta), .text(challenge), .text(side)])
        }
    }

    /// Marks a community challenge's group goal reached at `at` (or earlier than it was kept);
    /// false when it already was, at that time or before.
    @discardableResult
    public func completeChallengeGroup(challenge: String, at: Double) throws -> Bool {
        try run(
            """
            UPDATE challenge_totals SET completed_at = ?
            WHERE challenge_id = ? AND team = '' AND (completed_at IS NULL OR completed_at > ?)
            """, [.real(at), .text(challenge), .real(at)]) > 0
    }

    /// Moves the unsent analytics event `analytics.name` of `challenge` (of `ofUser`, or of
    /// anyone) to `analytics.occurredAt`, told as `analytics.userID` with its properties (when
    /// given): a completion that a late event moved back. What was sent stays as it was.
    public func redateChallengeAnalytics(_ analytics: AnalyticsEvent, challenge: String, ofUser: String?) throws {
        // Properties begin with the challenge's id (the challenges write them so).
        let prefix = "{\"challenge_id\":\(JSON.string(challenge).compactText),"
        let pattern = EventTypeFilter.likePattern(prefix) + "%"
        let properties = analytics.properties.isEmpty ? nil : JSON.object(analytics.properties).compactText
        try run(
            """
            UPDATE analytics_outbox SET occurred_at = ?, user_id = ?, properties = coalesce(?, properties)
            WHERE name = ? AND sent_at IS NULL AND properties LIKE ? ESCAPE '\\'\(ofUser == nil ? "" : " AND user_id = ?")
            """,
            [
                .real(analytics.occurredAt), .text(analytics.userID), .optional(properties), .text(analytics.name),
                .text(pattern),
            ] + (ofUser.map { [SQLValue.text($0)] } ?? []))
    }

    /// Records that the daily digest of `challenge` for `date` went out; false when it already had.
    public func markChallengeDigest(challenge: String, date: String, at: Double) throws -> Bool {
        try run(
            "INSERT INTO challenge_digests (challenge_id, date, sent_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [.text(challenge), .text(date), .real(at)]) > 0
    }

    private func appendFeed(challenge: String, user: String, action: String, value: Double?, at: Double, event: Int64?)
        throws
    {
        try run(
            "INSERT INTO challenge_feed (challenge_id, user_id, action, value, occurred_at, event) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(challenge), .text(user), .text(action), value.map(SQLValue.real) ?? .null, .real(at),
                event.map(SQLValue.integer) ?? .null,
            ])
    }

    /// Adds `delta` to a user's progress in a challenge; returns the new value.
    @discardableResult
    public func addChallengeProgress(challenge: String, user: String, delta: Double, at: Double, event: Int64? = nil)
        throws -> Double
    {
        try addToTotals(challenge: challenge, user: user, delta: delta)
        try appendFeed(challenge: challenge, user: user, action: "progress", value: delta, at: at, event: event)
        try run(
            """
            INSERT INTO challenge_progress (challenge_id, user_id, value, updated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (challenge_id, user_id) DO UPDATE SET value = challenge_progress.value + ?3,
                updated_at = CASE WHEN challenge_progress.updated_at > ?4 THEN challenge_progress.updated_at ELSE ?4 END
            """, [.text(challenge), .text(user), .real(delta), .real(at)])
        return try first(
            "SELECT value FROM challenge_progress WHERE challenge_id = ? AND user_id = ?",
            [.text(challenge), .text(user)]
        ) { $0.real(0) } ?? delta
    }

    /// Marks a challenge completed for a user at `at`; false when it already was. A completion
    /// already kept moves back to `at` when that is earlier (a late event completed it sooner),
    /// with its feed line and the rewards it granted.
    @discardableResult
    public func completeChallenge(challenge: String, user: String, at: Double, movedCelebration: Reminder? = nil)
        throws -> Bool
    {
        let completed = try run(
            """
            INSERT INTO challenge_progress (challenge_id, user_id, value, updated_at, completed_at) VALUES (?1, ?2, 0, ?3, ?3)
            ON CONFLICT (challenge_id, user_id) DO UPDATE SET completed_at = ?3 WHERE challenge_progress.completed_at IS NULL
            """, [.text(challenge), .text(user), .real(at)])
        guard completed > 0 else {
            if try run(
                "UPDATE challenge_progress SET completed_at = ? WHERE challenge_id = ? AND user_id = ? AND completed_at > ?",
                [.real(at), .text(challenge), .text(user), .real(at)]) > 0
            {
                try run(
                    "UPDATE challenge_feed SET occurred_at = ? WHERE challenge_id = ? AND user_id = ? AND action = 'completed'",
                    [.real(at), .text(challenge), .text(user)])
                try run(
                    "UPDATE rewards SET granted_at = ? WHERE user_id = ? AND reason = ?",
                    [.real(at), .text(user), .text("challenge:\(challenge)")])
                if let celebration = movedCelebration {
                    try run(
                        """
                        UPDATE reminders SET due_at = ?, payload = ?
                        WHERE user_id = ? AND dog_id IS NULL AND kind = ? AND status = 'pending'
                        """,
                        [
                            .real(celebration.dueAt), .text(celebration.payload.compactText), .text(user),
                            .text(celebration.kind),
                        ])
                }
                try redateChallengeAnalytics(
                    AnalyticsEvent(userID: user, name: "challenge_completed", occurredAt: at, properties: [:]),
                    challenge: challenge, ofUser: user)
            }
            return false
        }
        try appendFeed(challenge: challenge, user: user, action: "completed", value: nil, at: at, event: nil)
        return true
    }
}

/// How a participation is read: the columns, in order, and the row they make.
private enum ParticipationRow {
    static let columns = "challenge_id, user_id, team, value, joined_at, completed_at, updated_at"

    static func make(_ row: any SQLRow) -> ChallengeParticipation {
        ChallengeParticipation(
            challengeID: row.text(0) ?? "", userID: row.text(1) ?? "", team: row.text(2), value: row.real(3),
            joinedAt: row.optionalReal(4), completedAt: row.optionalReal(5), updatedAt: row.real(6))
    }
}
