import Core
import Store

/// A user's rewards (XP and badges, with the challenge that granted each), and the share card
/// of their standing in a challenge.
public enum RewardViews {
    /// `{user_id, xp, badges: [{badge_id, challenge_id, granted_at}], rewards: [...]}`, oldest first.
    public static func rewards(user: String, store: any StoreReader) throws -> JSON {
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
                "badge_id": row.badge.map(JSON.string) ?? .null, "challenge_id": challenge(row.reason),
                "granted_at": .string(Timestamp.format(row.at)),
            ]
        }
        let all: [JSON] = rows.map { row in
            [
                "reward": .string(row.reward), "amount": row.amount.map(JSON.number) ?? .null,
                "badge_id": row.badge.map(JSON.string) ?? .null, "reason": row.reason.map(JSON.string) ?? .null,
                "challenge_id": challenge(row.reason), "granted_at": .string(Timestamp.format(row.at)),
            ]
        }
        return ["user_id": .string(user), "xp": .number(xp), "badges": .array(badges), "rewards": .array(all)]
    }

    /// What the share sheet renders for `user` in `instance`: title, progress, deadline, rank
    /// and one line of text.
    public static func share(_ instance: ChallengeInstance, user: String, store: any StoreReader, now: Double) throws
        -> JSON
    {
        let view = try ChallengeViews.show(instance, store: store, user: user, now: now, feed: 0, naming: .userIDs)
        let target = instance.challenge.target
        let joined = view["me"]?["joined"] == true
        let value = view["current_value"]?.numberValue ?? 0
        let percent = view["me"]?["percent"]?.numberValue ?? 0
        let rank = view["rank"]?.numberValue
        let participants = view["participants"]?.numberValue ?? 0
        let daysLeft = Int((max(0, instance.endsAt - now) / 86_400).rounded(.up))
        var parts =
            joined
            ? [
                "\(JSON.format(number: value)) of \(JSON.format(number: target)) in \(instance.challenge.title)",
                "\(JSON.format(number: percent))%",
            ] : ["Join \(instance.challenge.title)"]
        if joined, let rank, participants > 1 { parts.append("#\(Int(rank)) of \(Int(participants))") }
        if view["completed_at"]?.stringValue != nil {
            parts.append("done!")
        } else if now <= instance.endsAt {
            parts.append(daysLeft == 1 ? "1 day left" : "\(daysLeft) days left")
        }
        return [
            "challenge_id": .string(instance.id), "title": .string(instance.challenge.title),
            "type": .string(instance.kind.rawValue), "user_id": .string(user), "joined": .bool(joined),
            "value": .number(value), "target": .number(target), "percent": .number(percent),
            "rank": rank.map(JSON.number) ?? .null, "participants": .number(participants),
            "deadline": .string(Timestamp.format(instance.endsAt)), "completed_at": view["completed_at"] ?? .null,
            "text": .string(parts.joined(separator: " · ")),
        ]
    }
}
