import SQLite

extension SQLiteStore {
    // MARK: Challenges

    private static let participationColumns = "challenge_id, user_id, team, value, joined_at, completed_at"

    private static func participation(_ row: Row) -> ChallengeParticipation {
        ChallengeParticipation(
            challengeID: row.text(0) ?? "", userID: row.text(1) ?? "", team: row.text(2), value: row.real(3),
            joinedAt: row.isNull(4) ? nil : row.real(4), completedAt: row.isNull(5) ? nil : row.real(5))
    }

    public func challengeParticipations(user: String) throws -> [ChallengeParticipation] {
        var result: [ChallengeParticipation] = []
        try connection.prepare(
            "SELECT \(Self.participationColumns) FROM challenge_progress WHERE user_id = ? AND joined_at IS NOT NULL"
        ).query([.text(user)]) { result.append(Self.participation($0)) }
        return result
    }

    public func challengeParticipation(challenge: String, user: String) throws -> ChallengeParticipation? {
        try connection.prepare(
            "SELECT \(Self.participationColumns) FROM challenge_progress WHERE challenge_id = ? AND user_id = ?"
        ).first([.text(challenge), .text(user)]) { Self.participation($0) }
    }

    public func challengeTotals(challenge: String) throws -> [ChallengeTotal] {
        var totals: [ChallengeTotal] = []
        try connection.prepare(
            "SELECT team, value, participants, completed_at FROM challenge_totals WHERE challenge_id = ? ORDER BY team"
        ).query([.text(challenge)]) { row in
            totals.append(
                ChallengeTotal(
                    team: row.text(0) ?? "", value: row.real(1), participants: Int(row.integer(2)),
                    completedAt: row.isNull(3) ? nil : row.real(3)))
        }
        return totals
    }

    public func challengeRanking(challenge: String, team: String?, limit: Int) throws -> [ChallengeParticipation] {
        var result: [ChallengeParticipation] = []
        let filter = team == nil ? "" : " AND team = ?"
        try connection.prepare(
            """
            SELECT \(Self.participationColumns) FROM challenge_progress
            WHERE challenge_id = ? AND joined_at IS NOT NULL\(filter)
            ORDER BY value DESC, joined_at, user_id LIMIT ?
            """
        ).query([.text(challenge)] + (team.map { [SQLiteValue.text($0)] } ?? []) + [.integer(Int64(limit))]) {
            result.append(Self.participation($0))
        }
        return result
    }

    public func challengeFeed(challenge: String, limit: Int) throws -> [ChallengeFeedItem] {
        var items: [ChallengeFeedItem] = []
        try connection.prepare(
            """
            SELECT user_id, action, value, occurred_at FROM challenge_feed WHERE challenge_id = ?
            ORDER BY occurred_at DESC, id DESC LIMIT ?
            """
        ).query([.text(challenge), .integer(Int64(limit))]) { row in
            items.append(
                ChallengeFeedItem(
                    userID: row.text(0) ?? "", action: row.text(1) ?? "", value: row.isNull(2) ? nil : row.real(2),
                    occurredAt: row.real(3)))
        }
        return items
    }

    public func joinChallenge(challenge: String, user: String, team: String?, at: Double, event: Int64?) throws -> Bool
    {
        try connection.run(
            """
            INSERT INTO challenge_progress (challenge_id, user_id, value, updated_at, joined_at, team) VALUES (?1, ?2, 0, ?3, ?3, ?4)
            ON CONFLICT (challenge_id, user_id) DO UPDATE SET joined_at = ?3, team = ?4 WHERE joined_at IS NULL
            """, [.text(challenge), .text(user), .real(at), .optional(team)])
        guard connection.changes > 0 else { return false }
        let value = try challengeParticipation(challenge: challenge, user: user)?.value ?? 0
        for side in team.map({ ["", $0] }) ?? [""] {
            try connection.run(
                """
                INSERT INTO challenge_totals (challenge_id, team, value, participants) VALUES (?1, ?2, ?3, 1)
                ON CONFLICT (challenge_id, team) DO UPDATE SET participants = participants + 1, value = value + ?3
                """, [.text(challenge), .text(side), .real(value)])
        }
        try appendFeed(challenge: challenge, user: user, action: "joined", value: nil, at: at, event: event)
        return true
    }

    func addToTotals(challenge: String, user: String, delta: Double) throws {
        guard let participation = try challengeParticipation(challenge: challenge, user: user),
            participation.joinedAt != nil
        else { return }
        for side in participation.team.map({ ["", $0] }) ?? [""] {
            try connection.run(
                "UPDATE challenge_totals SET value = value + ? WHERE challenge_id = ? AND team = ?",
                [.real(delta), .text(challenge), .text(side)])
        }
    }

    public func completeChallengeGroup(challenge: String, at: Double) throws -> Bool {
        try connection.run(
            "UPDATE challenge_totals SET completed_at = ? WHERE challenge_id = ? AND team = '' AND completed_at IS NULL",
            [.real(at), .text(challenge)])
        return connection.changes > 0
    }

    public func markChallengeDigest(challenge: String, date: String, at: Double) throws -> Bool {
        try connection.run(
            "INSERT INTO challenge_digests (challenge_id, date, sent_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [.text(challenge), .text(date), .real(at)])
        return connection.changes > 0
    }

    func appendFeed(challenge: String, user: String, action: String, value: Double?, at: Double, event: Int64?) throws {
        try connection.run(
            "INSERT INTO challenge_feed (challenge_id, user_id, action, value, occurred_at, event) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(challenge), .text(user), .text(action), value.map(SQLiteValue.real) ?? .null, .real(at),
                event.map(SQLiteValue.integer) ?? .null,
            ])
    }
}
