import Core
import Store

/// The contributions ledger (`challenge_contributions`) and the reads a participation is
/// recomputed from: the user's stored events in a window, with their facts.
extension StoreReader {
    /// A participation's contributions, in time order.
    public func challengeContributions(challenge: String, user: String) throws -> [ChallengeContribution] {
        try contributions(
            "SELECT event_key, occurred_at, delta, input, event FROM challenge_contributions WHERE challenge_id = ? AND user_id = ?",
            [.text(challenge), .text(user)])
    }

    /// The contributions of every member of a head-to-head side, in time order.
    public func challengeContributions(challenge: String, team: String) throws -> [ChallengeContribution] {
        try contributions(
            """
            SELECT c.event_key, c.occurred_at, c.delta, c.input, c.event FROM challenge_contributions c
            JOIN challenge_progress p ON p.challenge_id = c.challenge_id AND p.user_id = c.user_id
            WHERE c.challenge_id = ? AND p.team = ? AND p.joined_at IS NOT NULL
            """, [.text(challenge), .text(team)])
    }

    private func contributions(_ sql: String, _ values: [SQLValue]) throws -> [ChallengeContribution] {
        try rows(sql, values) { row in
            ChallengeContribution(
                eventKey: row.text(0) ?? "", occurredAt: row.real(1), delta: row.real(2),
                input: try row.text(3).map { try JSONParser().parse($0) },
                eventRow: row.isNull(4) ? nil : row.integer(4))
        }.sorted(by: ChallengeContribution.inTimeOrder)
    }

    /// What everyone who joined `challenge` contributed before `contribution` in time order
    /// (`occurred_at`, user, event key), as ``challengeCrossing(challenge:team:threshold:notAfter:)``
    /// orders them.
    public func challengeGroupValue(challenge: String, before contribution: GroupContribution) throws -> Double {
        try first(
            """
            SELECT coalesce(sum(c.delta), 0) FROM challenge_contributions c
            JOIN challenge_progress p ON p.challenge_id = c.challenge_id AND p.user_id = c.user_id
            WHERE c.challenge_id = ? AND p.joined_at IS NOT NULL
              AND c.occurred_at <= ?
              AND (c.occurred_at < ? OR (c.occurred_at = ? AND (c.user_id < ? OR (c.user_id = ? AND c.event_key < ?))))
            """,
            [
                .text(challenge), .real(contribution.occurredAt), .real(contribution.occurredAt),
                .real(contribution.occurredAt),
                .text(contribution.userID), .text(contribution.userID), .text(contribution.eventKey),
            ]
        ) { $0.real(0) } ?? 0
    }

    /// The first contribution, in time order (`occurred_at`, user, event key), at which the
    /// running sum of everyone who joined `challenge` (or of one side) reaches `threshold`.
    ///
    /// `notAfter`: a time the sum is known to have reached the threshold by (the group's kept
    /// completion). Contributions only add, so the crossing can only be then or earlier, and
    /// only the contributions up to then are read — the few that sum to less than the goal,
    /// however many counted after it (a query over the whole ledger made every late walk of a
    /// completed community challenge cost as much as all the walks before it).
    public func challengeCrossing(challenge: String, team: String?, threshold: Double, notAfter: Double? = nil)
        throws -> GroupContribution?
    {
        try first(
            """
            SELECT occurred_at, user_id, event_key FROM (
                SELECT c.occurred_at, c.user_id, c.event_key, sum(c.delta) OVER (
                    ORDER BY c.occurred_at, c.user_id, c.event_key ROWS UNBOUNDED PRECEDING) AS running
                FROM challenge_contributions c
                JOIN challenge_progress p ON p.challenge_id = c.challenge_id AND p.user_id = c.user_id
                WHERE c.challenge_id = ? AND p.joined_at IS NOT NULL\(team == nil ? "" : " AND p.team = ?")\(
                    notAfter == nil ? "" : " AND c.occurred_at <= ?")
            ) AS sums WHERE running >= ? ORDER BY occurred_at, user_id, event_key LIMIT 1
            """,
            [.text(challenge)] + (team.map { [SQLValue.text($0)] } ?? []) + (notAfter.map { [SQLValue.real($0)] } ?? [])
                + [.real(threshold)]
        ) { GroupContribution(occurredAt: $0.real(0), userID: $0.text(1) ?? "", eventKey: $0.text(2) ?? "") }
    }
}

extension StoreReader {
    /// A participant's place among everyone who joined: 1 + those with a higher value.
    public func challengePlace(of participation: ChallengeParticipation) throws -> Int {
        1
            + (try first(
                """
                SELECT count(*) FROM challenge_progress
                WHERE challenge_id = ? AND joined_at IS NOT NULL AND value > ?
                """, [.text(participation.challengeID), .real(participation.value)]
            ) { Int($0.integer(0)) } ?? 0)
    }

    /// How many joined `challenge` at or before `joinedBy`.
    public func challengeParticipants(challenge: String, joinedBy: Double) throws -> Int {
        try first(
            "SELECT count(*) FROM challenge_progress WHERE challenge_id = ? AND joined_at IS NOT NULL AND joined_at <= ?",
            [.text(challenge), .real(joinedBy)]
        ) { Int($0.integer(0)) } ?? 0
    }
}

/// One contribution of a group's ledger: when, whose, which event.
public struct GroupContribution: Sendable, Equatable {
    public var occurredAt: Double
    public var userID: String
    public var eventKey: String

    /// Time order across users: `occurred_at`, user, event key.
    public static func < (a: GroupContribution, b: GroupContribution) -> Bool {
        (a.occurredAt, a.userID, a.eventKey) < (b.occurredAt, b.userID, b.eventKey)
    }
}

extension Store {
    /// Counts `contribution` for `user` in `challenge` once: the ledger row, the participation's
    /// value (and its latest time), the running totals when they joined, and a feed line.
    /// False, changing nothing, when that event had already counted.
    @discardableResult
    public func addChallengeContribution(challenge: String, user: String, _ contribution: ChallengeContribution)
        throws -> Bool
    {
        let inserted = try run(
            """
            INSERT INTO challenge_contributions (challenge_id, user_id, event_key, occurred_at, delta, input, event)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """,
            [
                .text(challenge), .text(user), .text(contribution.eventKey), .real(contribution.occurredAt),
                .real(contribution.delta), .optional(contribution.input?.compactText),
                contribution.eventRow.map(SQLValue.integer) ?? .null,
            ])
        guard inserted > 0 else { return false }
        try addChallengeProgress(
            challenge: challenge, user: user, delta: contribution.delta, at: contribution.occurredAt,
            event: contribution.eventRow)
        return true
    }
}
