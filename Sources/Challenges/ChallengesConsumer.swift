import Core
import Engine
import JQ
import RuleEngine
import Store

/// Challenges in the ingest path: `challenge_joined` joins; every other event counts toward
/// each challenge the user joined, through the challenge's `challenge_metric` rule, when
/// `starts_at ≤ occurred_at ≤ ends_at + grace` (the ingest path has already refused events
/// beyond the late window, and resent events are duplicates, so each event counts once; an
/// event another consumer marks as not counting toward progress is skipped).
/// Completion happens once: XP, badge, a celebration and a "join the next one" suggestion.
public struct ChallengesConsumer: EventConsumer {
    public let catalog: ChallengeCatalog
    public var name: String { "challenges" }

    public static let joinEventType = "challenge_joined"

    /// The event types any challenge's metric reacts to; nil when a metric has no `events:`
    /// (then every event is looked at).
    private let countedTypes: Set<String>?

    public init(catalog: ChallengeCatalog, ruleSet: RuleSet? = nil) {
        self.catalog = catalog
        var types = Set<String>()
        var everyEvent = ruleSet == nil
        for challenge in catalog.challenges {
            guard let events = ruleSet?.rule(challenge.metricRuleID)?.events else {
                everyEvent = true
                break
            }
            types.formUnion(events)
        }
        countedTypes = everyEvent ? nil : types
    }

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        guard !catalog.challenges.isEmpty else { return [] }
        if event.type == Self.joinEventType { return try join(event, context: context) }
        // A feature found the event restates what was counted once (a day checked again).
        guard context.countsTowardProgress else { return [] }
        // No metric counts this type: no need to look up the user's participations.
        if let countedTypes, !countedTypes.contains(event.type) { return [] }
        let participations = try context.store.challengeParticipations(user: event.userID)
        guard !participations.isEmpty else { return [] }
        // The event as the rules see it, built once for every challenge it counts toward.
        let eventJSON = eventWithFacts(event, context: context)
        let input = eventJSON.map { JV($0) } ?? event.ruleValue
        var effects: [Effect] = []
        for participation in participations {
            guard let instance = catalog.resolve(participation.challengeID), instance.challenge.active,
                instance.counts(at: event.occurredAt),
                let rule = context.evaluator.ruleSet.rule(instance.challenge.metricRuleID)
            else { continue }
            if let events = rule.events, !events.contains(event.type) { continue }
            let result = try context.evaluator.evaluate(
                rule, input: input, options: EvaluationOptions(now: event.occurredAt))
            guard let delta = result.value?.numberValue, delta > 0 else { continue }
            effects.append(.challengeProgress(challengeID: instance.id, delta: delta))
            effects += try consequences(
                of: delta, for: participation, in: instance, event: event, eventJSON: eventJSON ?? event.json,
                context: context)
        }
        return effects
    }

    /// The event as ingested with the `facts` other features established for it (`habits`:
    /// `tracker_id`, `streak_days` for a habit check-in); nil when there are none.
    func eventWithFacts(_ event: Event, context: ConsumerContext) -> JSON? {
        var facts: JSONObject = [:]
        for effect in context.effectsSoFar {
            if case .analyticsEvent("habit_checked", let properties) = effect {
                facts["habits"] = .object(properties)
            }
        }
        guard !facts.isEmpty, case .object(var object) = event.json else { return nil }
        object["facts"] = .object(facts)
        return .object(object)
    }

    // MARK: Joining

    private func join(_ event: Event, context: ConsumerContext) throws -> [Effect] {
        guard case .string(let id)? = event.payload["challenge_id"], !id.isEmpty else {
            throw Rejection(.invalid, "`payload.challenge_id` must name the challenge to join")
        }
        var team: String?
        switch event.payload["team"] {
        case nil, .null?: break
        case .string(let text)? where !text.isEmpty && text.count <= 64: team = text
        default: throw Rejection(.invalid, "`payload.team` must be a name of 1 to 64 characters")
        }
        if let unknown = event.payload.keys.first(where: { $0 != "challenge_id" && $0 != "team" }) {
            throw Rejection(
                .invalid, "unknown field `payload.\(unknown)` for challenge_joined; fields: challenge_id, team")
        }
        guard let instance = catalog.resolve(id) else {
            let ids = catalog.challenges.map(\.id)
            throw Rejection(
                "unknown_challenge",
                "no challenge `\(id)`\(ids.isEmpty ? "" : "; challenges: \(ids.joined(separator: ", ")) (a recurring one's instances are <id>@<start date>)")"
            )
        }
        guard instance.challenge.active else {
            throw Rejection("challenge_inactive", "challenge `\(id)` is not active")
        }
        guard event.occurredAt <= instance.endsAt else {
            throw Rejection(
                "challenge_ended", "challenge `\(id)` ended at \(Timestamp.format(instance.endsAt)); join the next one")
        }
        if instance.kind == .headToHead {
            let side = team ?? event.userID
            team = side
            let sides = try context.store.challengeTotals(challenge: instance.id).map(\.team).filter { !$0.isEmpty }
            if !sides.contains(side), sides.count >= 2 {
                throw Rejection(
                    "challenge_full",
                    "head-to-head challenge `\(id)` already has its two sides: \(sides.joined(separator: " and "))")
            }
        } else if team != nil {
            throw Rejection(.invalid, "`payload.team` is only for head-to-head challenges")
        }
        if try context.store.challengeParticipation(challenge: instance.id, user: event.userID)?.joinedAt != nil {
            return []  // already in: joining again changes nothing
        }
        return [
            .challengeJoined(challengeID: instance.id, team: team),
            .analyticsEvent(
                name: "challenge_joined",
                properties: ["challenge_id": .string(instance.id), "type": .string(instance.kind.rawValue)]),
        ]
    }

    // MARK: Progress

    /// Overtaking (from behind or level to ahead of a side that has started; the first step
    /// of all is not one) and completion
    /// after `delta` counted for the event's user.
    private func consequences(
        of delta: Double, for participation: ChallengeParticipation, in instance: ChallengeInstance, event: Event,
        eventJSON: JSON, context: ConsumerContext
    ) throws -> [Effect] {
        var effects: [Effect] = []
        let value = participation.value + delta
        switch instance.kind {
        case .community:
            let totals = try context.store.challengeTotals(challenge: instance.id)
            let group = totals.first { $0.team.isEmpty }
            let before = group?.value ?? 0
            if group?.completedAt == nil,
                try completes(instance, value: before + delta, event: event, eventJSON: eventJSON, context: context)
            {
                effects.append(.challengeGroupCompleted(challengeID: instance.id))
                effects.append(
                    .analyticsEvent(
                        name: "challenge_group_completed",
                        properties: [
                            "challenge_id": .string(instance.id),
                            "participants": .number(Double(group?.participants ?? 0)),
                        ]))
            }
            return effects
        case .headToHead:
            guard let team = participation.team else { break }
            let totals = try context.store.challengeTotals(challenge: instance.id)
            let mine = totals.first { $0.team == team }?.value ?? 0
            if let other = totals.first(where: { !$0.team.isEmpty && $0.team != team }),
                other.value > 0, mine <= other.value, mine + delta > other.value
            {
                effects += try overtaking(instance, leader: team, other: other.team, event: event, context: context)
            }
            if participation.completedAt == nil,
                try completes(instance, value: mine + delta, event: event, eventJSON: eventJSON, context: context)
            {
                effects += completion(instance, event: event)
            }
            return effects
        case .solo, .recurring:
            break
        }
        if participation.completedAt == nil,
            try completes(instance, value: value, event: event, eventJSON: eventJSON, context: context)
        {
            effects += completion(instance, event: event)
        }
        return effects
    }

    /// Whether `value` completes the challenge: its `completion` rule over
    /// `{value, target, challenge, event}`, or value ≥ target.
    private func completes(
        _ instance: ChallengeInstance, value: Double, event: Event, eventJSON: JSON, context: ConsumerContext
    ) throws -> Bool {
        guard let id = instance.challenge.completionRuleID, let rule = context.evaluator.ruleSet.rule(id) else {
            return value >= instance.challenge.target
        }
        let input = JSON.object([
            "value": .number(value), "target": .number(instance.challenge.target),
            "challenge": instance.json, "event": eventJSON,
        ])
        return try context.evaluator.evaluate(rule, input: JV(input), options: EvaluationOptions(now: event.occurredAt))
            .value?.boolValue ?? false
    }

    /// Completed: the record, XP and badge (once), the celebration with the next challenge.
    private func completion(_ instance: ChallengeInstance, event: Event) -> [Effect] {
        let challenge = instance.challenge
        var effects: [Effect] = [.challengeCompleted(challengeID: instance.id)]
        if let xp = challenge.xpReward, xp > 0 {
            effects.append(.rewardGranted(reward: "xp", amount: xp, badgeID: nil, reason: "challenge:\(instance.id)"))
        }
        if let badge = challenge.badgeID {
            effects.append(
                .rewardGranted(reward: "badge", amount: nil, badgeID: badge, reason: "challenge:\(instance.id)"))
        }
        let next = nextChallenge(after: instance, at: event.occurredAt)
        var payload: JSONObject = [
            "challenge_id": .string(instance.id), "title": .string(challenge.title),
            "text": .string("You did it: \(challenge.title)!"),
        ]
        payload["next_challenge"] =
            next.map {
                .object([
                    "id": .string($0.id), "title": .string($0.challenge.title),
                    "text": .string("Join the next one: \($0.challenge.title)"),
                ])
            } ?? .null
        effects.append(
            .reminderScheduled(
                Reminder(
                    userID: event.userID, dogID: nil, kind: "challenge_completed:\(instance.id)",
                    dueAt: event.occurredAt, payload: .object(payload))))
        effects.append(
            .analyticsEvent(
                name: "challenge_completed",
                properties: ["challenge_id": .string(instance.id), "type": .string(instance.kind.rawValue)]))
        return effects
    }

    /// The next instance of a recurring challenge, else another challenge still open to join.
    func nextChallenge(after instance: ChallengeInstance, at time: Double) -> ChallengeInstance? {
        if instance.challenge.kind == .recurring,
            let next = instance.challenge.instances().first(where: { $0.startsAt > instance.startsAt })
        {
            return next
        }
        return catalog.instances(overlapping: time, time + 366 * 86_400)
            .filter { $0.id != instance.id && $0.challenge.active && $0.endsAt >= time }
            .min { $0.startsAt < $1.startsAt }
    }

    /// Notifications when `leader`'s side overtakes `other`'s.
    private func overtaking(
        _ instance: ChallengeInstance, leader: String, other: String, event: Event, context: ConsumerContext
    ) throws -> [Effect] {
        var effects: [Effect] = []
        let title = instance.challenge.title
        for (side, text) in [(other, "\(leader) overtook you in \(title)"), (leader, "You took the lead in \(title)")] {
            for member in try context.store.challengeRanking(challenge: instance.id, team: side, limit: 100) {
                effects.append(
                    .reminderScheduled(
                        Reminder(
                            userID: member.userID, dogID: nil, kind: "challenge_overtaken:\(instance.id)",
                            dueAt: event.occurredAt,
                            payload: .object([
                                "challenge_id": .string(instance.id), "leader": .string(leader), "text": .string(text),
                            ]))))
            }
        }
        effects.append(
            .analyticsEvent(
                name: "challenge_overtaken",
                properties: ["challenge_id": .string(instance.id), "leader": .string(leader), "behind": .string(other)])
        )
        return effects
    }
}
