import Core
import FeatureKit
import Store

/// What a completion is celebrated with: a push due then, with the challenge to join next.
extension ChallengeCatalog {
    /// The celebration push of a completion at `at`, with the challenge to join next.
    public func celebration(of instance: ChallengeInstance, for user: String, at: Double) -> Reminder {
        let challenge = instance.challenge
        var payload: JSONObject = [
            "challenge_id": .string(instance.id), "title": ChallengeTexts.title(challenge),
            "text": ChallengeTexts.celebration(instance),
        ]
        payload["next_challenge"] =
            next(after: instance, at: at).map {
                .object([
                    "id": .string($0.id), "title": ChallengeTexts.title($0.challenge),
                    "text": ChallengeTexts.joinNext($0),
                ])
            } ?? .null
        return Reminder(
            userID: user, dogID: nil, kind: "challenge_completed:\(instance.id)", dueAt: at, payload: .object(payload))
    }

    /// The next instance of a recurring challenge, else another challenge still open to join.
    public func next(after instance: ChallengeInstance, at time: Double) -> ChallengeInstance? {
        if instance.challenge.kind == .recurring,
            let next = instance.challenge.instances().first(where: { $0.startsAt > instance.startsAt })
        {
            return next
        }
        return instances(overlapping: time, time + 366 * 86_400)
            .filter { $0.id != instance.id && $0.challenge.active && $0.endsAt >= time }
            .min { $0.startsAt < $1.startsAt }
    }
}

/// What a completion grants and reports, the same however it is made (an event, or the
/// crediting of a group or a side).
extension ChallengeInstance {
    /// The XP and badge granted to `user` for completing it at `at`.
    public func rewards(for user: String, at: Double) -> [Reward] {
        var rewards: [Reward] = []
        if let xp = challenge.xpReward, xp > 0 {
            rewards.append(
                Reward(reward: "xp", userID: user, amount: xp, badgeID: nil, reason: "challenge:\(id)", grantedAt: at))
        }
        if let badge = challenge.badgeID {
            rewards.append(
                Reward(
                    reward: "badge", userID: user, amount: nil, badgeID: badge, reason: "challenge:\(id)", grantedAt: at
                ))
        }
        return rewards
    }

    /// The `challenge_completed` analytics event's properties.
    public var completedAnalytics: JSONObject {
        ["challenge_id": .string(id), "type": .string(kind.rawValue)]
    }
}
