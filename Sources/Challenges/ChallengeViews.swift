import Core
import FeatureKit
import JQ
import RuleEngine
import Store

/// What the app shows about challenges: the list with progress, deadline and participant
/// count; one challenge with its totals, the user's standing, ranking and feed.
public enum ChallengeViews {
    /// Challenges open at `now` (running, or starting within 30 days; of a recurring one the
    /// running instance and the next), each with its
    /// participants and, for `user`, whether they joined and their value.
    public static func list(catalog: ChallengeCatalog, store: any StoreReader, user: String?, now: Double) throws
        -> JSON
    {
        var upcoming = Set<String>()
        let instances = catalog.instances(overlapping: now, now + 30 * 86_400)
            .filter { $0.challenge.active }
            .sorted { ($0.startsAt, $0.id) < ($1.startsAt, $1.id) }
            // A recurring challenge shows its running instance and the next one.
            .filter { $0.startsAt <= now || upcoming.insert($0.challenge.id).inserted }
            .sorted { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }
        var items: [JSON] = []
        for instance in instances {
            guard
                case .object(var object) = try show(
                    instance, store: store, user: user, now: now, feed: 0, naming: .userIDs)
            else {
                continue
            }
            object["ranking"] = nil
            object["feed"] = nil
            items.append(.object(object))
        }
        return .object(["as_of": .string(Timestamp.format(now)), "challenges": .array(items)])
    }

    /// One challenge: definition, status, deadline, totals (`aggregate` for community ones,
    /// each side's for head-to-head), `user`'s `current_value`, `completed_at` and `rank` (also
    /// under `me`, with more), the
    /// ranking (head-to-head sides, or the top participants) and the newest `feed` lines, their
    /// participants named by `naming`.
    public static func show(
        _ instance: ChallengeInstance, store: any StoreReader, user: String?, now: Double, feed: Int = 20,
        naming: ParticipantNaming
    ) throws -> JSON {
        guard case .object(var object) = instance.json else { return instance.json }
        let challenge = instance.challenge
        // What people read is keyed text, rendered in the reader's locale by the route
        // (``localized(_:texts:)``): the title, the goal and every amount with its unit.
        object["title"] = ChallengeTexts.title(challenge)
        object["description"] = ChallengeTexts.description(challenge) ?? .null
        object["unit"] = challenge.unit.map(JSON.string) ?? .null
        object["target_text"] = ChallengeTexts.amount(challenge.target, of: challenge)
        let totals = try store.challengeTotals(challenge: instance.id)
        let group = totals.first { $0.team.isEmpty }
        let status: String =
            now < instance.startsAt
            ? "upcoming"
            : now <= instance.endsAt
                ? "running"
                : now <= instance.endsAt + instance.challenge.grace ? "grace" : "ended"
        object["status"] = .string(status)
        // No event can count any more once the late window has passed the end (plus grace).
        object["final"] = .bool(now > instance.endsAt + instance.challenge.grace + lateWindow)
        object["seconds_left"] = .number(max(0, instance.endsAt - now).rounded())
        object["participants"] = .number(Double(group?.participants ?? 0))
        if instance.kind == .community {
            let value = group?.value ?? 0
            object["aggregate"] = .object([
                "value": .number(value), "value_text": ChallengeTexts.amount(value, of: challenge),
                "percent": .number(percent(value, of: instance.challenge.target)),
                "participants": .number(Double(group?.participants ?? 0)),
                "completed_at": group?.completedAt.map { .string(Timestamp.format($0)) } ?? .null,
            ])
        }
        var ranking: [JSON] = []
        if instance.kind == .headToHead {
            let sides = totals.filter { !$0.team.isEmpty }.sorted { ($1.value, $0.team) < ($0.value, $1.team) }
            ranking = sides.enumerated().map { index, side in
                .object([
                    "rank": .number(Double(index + 1)), "team_id": .string(side.team),
                    "team_name": ChallengeTexts.team(side.team), "value": .number(side.value),
                    "value_text": ChallengeTexts.amount(side.value, of: challenge),
                    "participants": .number(Double(side.participants)),
                ])
            }
        } else if feed > 0 {
            let participants = try store.challengeRanking(challenge: instance.id, team: nil, limit: 10)
            let naming = try naming.knowing(participants.map(\.userID), in: store)
            ranking = participants.enumerated().map { index, participant in
                .object(
                    (["rank": .number(Double(index + 1))] as JSONObject)
                        .adding(naming.fields(challenge: instance.id, user: participant.userID))
                        .adding(["value": .number(participant.value)]))
            }
        }
        object["ranking"] = .array(ranking)
        if let user {
            if let me = try store.challengeParticipation(challenge: instance.id, user: user), me.joinedAt != nil {
                var mine: JSONObject = [
                    "joined": true, "current_value": .number(me.value),
                    "current_value_text": ChallengeTexts.amount(me.value, of: challenge),
                    "percent": .number(percent(me.value, of: instance.challenge.target)),
                    "joined_at": me.joinedAt.map { .string(Timestamp.format($0)) } ?? .null,
                    "completed_at": me.completedAt.map { .string(Timestamp.format($0)) } ?? .null,
                ]
                mine["team_id"] = me.team.map(JSON.string) ?? .null
                let place = try rank(of: me, in: instance, totals: totals) ?? store.challengePlace(of: me)
                mine["rank"] = .number(Double(place))
                object["me"] = .object(mine)
                for key in ["current_value", "completed_at", "rank"] { object[key] = mine[key] }
            } else {
                object["me"] = .object(["joined": false])
                for key in ["current_value", "completed_at", "rank"] { object[key] = .null }
            }
        }
        if feed > 0 {
            let items = try store.challengeFeed(challenge: instance.id, limit: feed)
            let naming = try naming.knowing(items.map(\.userID), in: store)
            object["feed"] = .array(items.map { feedLine($0, of: instance, naming: naming) })
        }
        return .object(object)
    }

    /// A line of the feed: who (as `naming` says), what, how much, when, and its `text`
    /// («Анна: +5 км», «Вы: +5 км»; never an id).
    public static func feedLine(_ item: ChallengeFeedItem, of instance: ChallengeInstance, naming: ParticipantNaming)
        -> JSON
    {
        let who = naming.fields(challenge: instance.id, user: item.userID)
        let text = ChallengeTexts.feedLine(
            action: item.action, value: item.value, name: who["display_name"]?.stringValue,
            isYou: who["is_you"] == true, of: instance.challenge)
        return .object(
            who.adding([
                "verb": .string(item.action), "value": item.value.map(JSON.number) ?? .null,
                "occurred_at": .string(Timestamp.format(item.occurredAt)), "text": text,
            ]))
    }

    /// `view` with its texts rendered in `texts`' locale, which `locale` names.
    public static func localized(_ view: JSON, texts: RequestTexts) -> JSON {
        guard case .object(var object) = DeferredText.rendered(view, texts: texts) else { return view }
        object["locale"] = .string(texts.locale)
        return .object(object)
    }

    /// Rank for competitive types: a head-to-head side's place (1 or 2); nil otherwise.
    static func rank(
        of participation: ChallengeParticipation, in instance: ChallengeInstance, totals: [ChallengeTotal]
    ) -> Int? {
        guard instance.kind == .headToHead, let team = participation.team else { return nil }
        let mine = totals.first { $0.team == team }?.value ?? 0
        return 1 + totals.filter { !$0.team.isEmpty && $0.team != team && $0.value > mine }.count
    }

    /// The ingest path's default late window: results are final this long after the end.
    public static let lateWindow: Double = 7 * 86_400

    static func percent(_ value: Double, of target: Double) -> Double {
        target > 0 ? (value / target * 1000).rounded(.down) / 10 : 0
    }
}
