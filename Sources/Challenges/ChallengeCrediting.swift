import Core
import Store

/// A community goal, once reached, credits every participant: completion at the moment the
/// group reached it (or at their join, when they joined after), XP and badge once, and the
/// celebration with "join the next one". `journey serve` runs it every minute, after the
/// events' commits (so an event never pays for the participants), and the daily digest runs
/// it too.
public enum ChallengeCrediting {
    /// Credits the participants of every community challenge whose group reached its goal and
    /// whose results are not final yet; returns how many were credited. One transaction.
    public static func run(catalog: ChallengeCatalog, store: any Store, now: Double) throws -> Int {
        let open = catalog.instances(overlapping: now - 3 * ChallengeViews.lateWindow, now)
            .filter { $0.kind == .community && $0.challenge.active }
        return try store.transaction {
            var credited = 0
            for instance in open {
                credited += try credit(instance, catalog: catalog, store: store)
            }
            return credited
        }
    }

    /// Credits `instance`'s participants not credited yet, when its group reached the goal.
    static func credit(_ instance: ChallengeInstance, catalog: ChallengeCatalog, store: any Store) throws -> Int {
        guard
            let reached = try store.challengeTotals(challenge: instance.id).first(where: { $0.team.isEmpty })?
                .completedAt
        else { return 0 }
        return try credit(instance, reached: reached, team: nil, except: nil, catalog: catalog, store: store)
    }

    /// Credits the participants of `instance` (of one head-to-head side, or all) not credited
    /// yet, but `except`, as of `reached` (or their later join).
    static func credit(
        _ instance: ChallengeInstance, reached: Double, team: String?, except: String?, catalog: ChallengeCatalog,
        store: any Store
    ) throws -> Int {
        let waiting = try store.rows(
            """
            SELECT user_id, joined_at FROM challenge_progress
            WHERE challenge_id = ? AND joined_at IS NOT NULL AND completed_at IS NULL\(team == nil ? "" : " AND team = ?")
            ORDER BY user_id
            """, [.text(instance.id)] + (team.map { [SQLValue.text($0)] } ?? [])
        ) { (user: $0.text(0) ?? "", joinedAt: $0.real(1)) }.filter { $0.user != except }
        var credited = 0
        for participant in waiting {
            let at = max(reached, participant.joinedAt)
            guard try store.completeChallenge(challenge: instance.id, user: participant.user, at: at) else { continue }
            credited += 1
            for reward in instance.rewards(for: participant.user, at: at) {
                try store.grantReward(reward, event: nil)
            }
            try store.scheduleReminder(catalog.celebration(of: instance, for: participant.user, at: at), event: nil)
            try store.appendAnalytics(
                AnalyticsEvent(
                    userID: participant.user, name: "challenge_completed", occurredAt: at,
                    properties: instance.completedAnalytics),
                event: nil)
        }
        return credited
    }
}
