import Core
import FeatureKit
import Store

/// A user's rewards (XP and badges, with the challenge that granted each), and the share card
/// of their standing in a challenge.
public enum RewardViews {
    /// `{user_id, xp, badges: [{badge_id, title, image, challenge_id, granted_at}], rewards:
    /// [...]}`, oldest first; a badge's `title` and `image` (a reference the app resolves) are
    /// `badges.<id>.title` and `badges.<id>.image` in `texts`' locale.
    public static func rewards(user: String, store: any StoreReader, texts: RequestTexts) throws -> JSON {
        let rows = try store.rows(
            "SELECT reward, amount, badge_id, reason, granted_at FROM rewards WHERE user_id = ? ORDER BY granted_at, id",
            [.text(user)]
        ) { row in
            (
                reward: row.text(0) ?? "", amount: row.optionalReal(1), badge: row.text(2), reason: row.text(3),
                at: row.real(4)
            )
        }
        func challenge(_ reason: String?) -> JSON {
            guard let reason, reason.hasPrefix("challenge:") else { return .null }
            return .string(String(reason.dropFirst("challenge:".count)))
        }
        let xp = rows.filter { $0.reward == "xp" }.reduce(0) { $0 + ($1.amount ?? 0) }
        let badges: [JSON] = rows.filter { $0.reward == "badge" }.map { row in
            [
                "badge_id": row.badge.map(JSON.string) ?? .null,
                "title": row.badge.map { DeferredText.rendered(ChallengeTexts.badgeTitle($0), texts: texts) } ?? .null,
                "image": row.badge.map { DeferredText.rendered(ChallengeTexts.badgeImage($0), texts: texts) } ?? .null,
                "challenge_id": challenge(row.reason), "granted_at": .string(Timestamp.format(row.at)),
            ]
        }
        let all: [JSON] = rows.map { row in
            [
                "reward": .string(row.reward), "amount": row.amount.map(JSON.number) ?? .null,
                "badge_id": row.badge.map(JSON.string) ?? .null, "reason": row.reason.map(JSON.string) ?? .null,
                "challenge_id": challenge(row.reason), "granted_at": .string(Timestamp.format(row.at)),
            ]
        }
        return [
            "user_id": .string(user), "xp": .number(xp), "badges": .array(badges), "rewards": .array(all),
            "locale": .string(texts.locale),
        ]
    }

    /// What the share sheet renders for `user` in `instance`: title, progress, deadline, rank
    /// and one line of text, in `texts`' locale («42,5 из 50 км в «Пройти 50 км с собакой» · 85% ·
    /// 1-е место из 2 · осталось 3 дня»), and the name the user gave their profile, for the card.
    public static func share(
        _ instance: ChallengeInstance, user: String, store: any StoreReader, now: Double, texts: RequestTexts
    ) throws -> JSON {
        let view = try ChallengeViews.show(instance, store: store, user: user, now: now, feed: 0, naming: .userIDs)
        let challenge = instance.challenge
        let target = challenge.target
        let joined = view["me"]?["joined"] == true
        let value = view["current_value"]?.numberValue ?? 0
        let percent = view["me"]?["percent"]?.numberValue ?? 0
        let rank = view["rank"]?.numberValue
        let participants = view["participants"]?.numberValue ?? 0
        let daysLeft = Int((max(0, instance.endsAt - now) / 86_400).rounded(.up))
        let title = ChallengeTexts.title(challenge)
        var parts: [JSON] =
            joined
            ? [
                DeferredText.json(
                    "challenges.share.progress",
                    [
                        "value": DeferredText.json(ChallengeTexts.numberKey, ["count": .number(value)]),
                        "target": ChallengeTexts.amount(target, of: challenge), "title": title,
                    ]),
                DeferredText.json("challenges.share.percent", ["percent": .number(percent)]),
            ] : [DeferredText.json("challenges.share.join", ["title": title])]
        if joined, let rank, participants > 1 {
            parts.append(
                DeferredText.json(
                    "challenges.share.rank", ["rank": .number(rank), "participants": .number(participants)]))
        }
        if view["completed_at"]?.stringValue != nil {
            parts.append(DeferredText.json("challenges.share.done"))
        } else if now <= instance.endsAt {
            parts.append(ChallengeTexts.timeLeft(days: daysLeft))
        }
        let line = parts.compactMap { DeferredText.rendered($0, texts: texts).stringValue }.joined(separator: " · ")
        return [
            "challenge_id": .string(instance.id), "title": DeferredText.rendered(title, texts: texts),
            "type": .string(instance.kind.rawValue), "user_id": .string(user),
            "display_name": try store.userProfile(user)?.displayName.map(JSON.string) ?? .null, "joined": .bool(joined),
            "value": .number(value), "target": .number(target), "percent": .number(percent),
            "unit": challenge.unit.map(JSON.string) ?? .null,
            "rank": rank.map(JSON.number) ?? .null, "participants": .number(participants),
            "deadline": .string(Timestamp.format(instance.endsAt)), "completed_at": view["completed_at"] ?? .null,
            "text": .string(line), "locale": .string(texts.locale),
        ]
    }
}
