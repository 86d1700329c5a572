import Core
import FeatureKit

/// What challenges say to people, as keyed texts of the locale files (`challenges.…`), kept as
/// ``DeferredText`` so that a push is written in its recipient's locale when it is read and a
/// screen in the request's: titles, amounts with their unit («8 500 шагов», "8,500 steps"),
/// team names, the head-to-head pushes, the digest, the celebration, the share line, the feed
/// lines and the badges. Never a raw team or user id, never an unformatted number.
public enum ChallengeTexts {
    /// A key part made of an id: `walk-50k` → `walk_50k` (keys are lowercase words).
    static func keyPart(_ id: String) -> String {
        String(id.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The challenge's title: `challenges.<id>.title` (`{target}` is its goal with the unit:
    /// «Пройти 50 км с собакой»), else the title its file gives.
    public static func title(_ challenge: Challenge) -> JSON {
        DeferredText.json(
            "challenges.\(keyPart(challenge.id)).title", ["target": amount(challenge.target, of: challenge)],
            default: challenge.title)
    }

    /// The challenge's description: `challenges.<id>.description`, else its file's.
    public static func description(_ challenge: Challenge) -> JSON? {
        let key = "challenges.\(keyPart(challenge.id)).description"
        return challenge.description.map {
            DeferredText.json(key, ["target": amount(challenge.target, of: challenge)], default: $0)
        }
    }

    /// `value` in the challenge's unit: `challenges.unit.<unit>` («8 500 шагов»), else the
    /// number in the locale's digits.
    public static func amount(_ value: Double, of challenge: Challenge) -> JSON {
        guard let unit = challenge.unit else { return DeferredText.json(numberKey, ["count": .number(value)]) }
        return DeferredText.json("challenges.unit.\(keyPart(unit))", ["count": .number(value)], or: numberKey)
    }

    /// A head-to-head side's name: `challenges.team.<team>` («Красные»), else «Соперники».
    public static func team(_ team: String) -> JSON {
        DeferredText.json("challenges.team.\(keyPart(team))", or: "challenges.team.unnamed")
    }

    /// A number alone, in the locale's digits.
    static let numberKey = "challenges.number"

    /// «Синие — 8 500 из 150 000 шагов в «Дуэли шагов». У вас 9 000 шагов».
    static func opponentProgress(_ instance: ChallengeInstance, side: String, value: Double, mine: Double) -> JSON {
        let challenge = instance.challenge
        return DeferredText.json(
            "challenges.duel.opponent_progress",
            [
                "team": team(side), "value": DeferredText.json(numberKey, ["count": .number(value)]),
                "target": amount(challenge.target, of: challenge),
                "title": title(challenge), "mine": amount(mine, of: challenge),
            ])
    }

    /// «Синие обогнали вас в «Дуэли шагов»».
    static func overtaken(_ instance: ChallengeInstance, by leader: String) -> JSON {
        DeferredText.json("challenges.duel.overtaken", ["team": team(leader), "title": title(instance.challenge)])
    }

    /// «Вы вышли вперёд в «Дуэли шагов»».
    static func tookTheLead(_ instance: ChallengeInstance) -> JSON {
        DeferredText.json("challenges.duel.lead", ["title": title(instance.challenge)])
    }

    /// «Получилось: «Пройти 50 км с собакой»!».
    static func celebration(_ instance: ChallengeInstance) -> JSON {
        DeferredText.json("challenges.celebration.done", ["title": title(instance.challenge)])
    }

    /// «Присоединиться к следующему челленджу: «…»».
    static func joinNext(_ instance: ChallengeInstance) -> JSON {
        DeferredText.json("challenges.celebration.next", ["title": title(instance.challenge)])
    }

    /// «остался 1 день», «осталось 3 дня», or «остались последние часы».
    static func timeLeft(days: Int) -> JSON {
        days <= 0
            ? DeferredText.json("challenges.last_hours")
            : DeferredText.json("challenges.days_left", ["count": .number(Double(days))])
    }

    /// «Наша группа выполнила 67% цели, осталось 3 дня» (seed 003), or that it reached the goal.
    static func digest(_ instance: ChallengeInstance, value: Double, now: Double) -> JSON {
        let challenge = instance.challenge
        if value >= Challenge.reachThreshold(of: challenge.target) {
            return DeferredText.json("challenges.digest.reached", ["title": title(challenge)])
        }
        let days = Int(((instance.endsAt - now) / 86_400).rounded(.up))
        let percent = ChallengeViews.percent(value, of: challenge.target).rounded(.down)
        if percent == 0 && value > 0 {
            return DeferredText.json("challenges.digest.started", ["left": timeLeft(days: days)])
        }
        return DeferredText.json(
            "challenges.digest.progress", ["percent": .number(percent), "left": timeLeft(days: days)])
    }

    /// A feed line: «Анна: +5 км», «Вы: +5 км»; who is `display_name`, «Вы» on the reader's own
    /// lines, else «Участник» (never an id).
    static func feedLine(action: String, value: Double?, name: String?, isYou: Bool, of challenge: Challenge) -> JSON {
        let who: JSON =
            isYou
            ? DeferredText.json("challenges.feed.you")
            : name.map(JSON.string) ?? DeferredText.json("challenges.feed.someone")
        var arguments: JSONObject = ["name": who]
        if let value { arguments["amount"] = amount(value, of: challenge) }
        return DeferredText.json("challenges.feed.\(keyPart(action))", arguments, default: action)
    }

    /// A badge's title: `badges.<id>.title`, else its id written as words.
    static func badgeTitle(_ badge: String) -> JSON {
        DeferredText.json("badges.\(keyPart(badge)).title", default: badge)
    }

    /// A badge's image reference (`badges/walker-50k.png`, per locale): `badges.<id>.image`.
    static func badgeImage(_ badge: String) -> JSON {
        DeferredText.json("badges.\(keyPart(badge)).image", or: "badges.default.image")
    }

    /// The keys the code renders whatever the challenges (a challenge's title, description,
    /// unit, team and badge keys are named after it, and optional: each has its fallback).
    public static var uses: [TextUse] {
        let pushes = "GET /v1/reminders/due (challenge pushes)"
        let views = "GET /v1/challenges/{challenge_id}"
        let share = "GET /v1/challenges/{challenge_id}/share"
        return [
            TextUse(numberKey, usedBy: views + " (amounts without a unit)"),
            TextUse("challenges.team.unnamed", usedBy: pushes + ", " + views + " (a side without a name)"),
            TextUse("challenges.duel.opponent_progress", usedBy: pushes),
            TextUse("challenges.duel.overtaken", usedBy: pushes), TextUse("challenges.duel.lead", usedBy: pushes),
            TextUse("challenges.celebration.done", usedBy: pushes),
            TextUse("challenges.celebration.next", usedBy: pushes),
            TextUse("challenges.days_left", usedBy: pushes + ", " + share),
            TextUse("challenges.last_hours", usedBy: pushes + ", " + share),
            TextUse("challenges.digest.progress", usedBy: pushes), TextUse("challenges.digest.started", usedBy: pushes),
            TextUse("challenges.digest.reached", usedBy: pushes),
            TextUse("challenges.share.progress", usedBy: share), TextUse("challenges.share.percent", usedBy: share),
            TextUse("challenges.share.rank", usedBy: share), TextUse("challenges.share.done", usedBy: share),
            TextUse("challenges.share.join", usedBy: share),
            TextUse("challenges.feed.you", usedBy: views + "/feed"),
            TextUse("challenges.feed.someone", usedBy: views + "/feed"),
            TextUse("challenges.feed.joined", usedBy: views + "/feed"),
            TextUse("challenges.feed.progress", usedBy: views + "/feed"),
            TextUse("challenges.feed.completed", usedBy: views + "/feed"),
            TextUse("badges.default.image", usedBy: "GET /v1/users/{user_id}/rewards (a badge without an image)"),
        ]
    }
}
