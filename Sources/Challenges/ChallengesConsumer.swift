import Core
import Engine
import JQ
import RuleEngine
import Store

/// Challenges in the ingest path: `challenge_joined` joins; every other event counts toward
/// each challenge the user joined, through the challenge's `challenge_metric` rule, when
/// `starts_at ≤ occurred_at ≤ ends_at + grace` (and, with `counts_from: joined`, from the
/// join on). Outcomes follow from the set of events, whatever their order of arrival: a join
/// counts the user's events stored before it, each event counts once (the contributions
/// ledger), and completion happens at the `occurred_at` where the contributions, in time
/// order, first complete the challenge; a late event that completes it sooner moves it back.
/// Completion is rewarded once: XP, badge, a celebration and a "join the next one" suggestion.
/// A habit check-in of a day checked before (and unchecked since) counts nothing again.
public struct ChallengesConsumer: EventConsumer {
    public let catalog: ChallengeCatalog
    public var name: String { "challenges" }
    /// Challenges read participations, the ledger and events; they move their own reminders
    /// only in their effects (the engine writes held reminders before a feature's effect).
    public func readsReminders(for event: Event) -> Bool { false }

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
        // No metric counts this type: no need to look up the user's participations.
        if let countedTypes, !countedTypes.contains(event.type) { return [] }
        // A late check-in lengthened later check-ins' streaks: the ledger's inputs follow.
        let revised = context.revisedFacts(of: "habits")
        let revision: [Effect] =
            revised.isEmpty ? [] : [ChallengeInputsRevisedEffect(habitFacts: revised).effect]
        return revision + (try counted(event, context: context))
    }

    /// What `event` (not a join) counts toward each challenge the user joined.
    private func counted(_ event: Event, context: ConsumerContext) throws -> [Effect] {
        // The event as the rules see it, built once for every challenge it counts toward.
        let eventJSON = eventWithFacts(event, context: context)
        if Self.checksADayAgain(eventJSON?["facts"]?["habits"]) { return [] }
        let participations = try context.store.challengeParticipations(user: event.userID)
        guard !participations.isEmpty else { return [] }
        let input = eventJSON.map { JV($0) } ?? event.ruleValue
        var effects: [Effect] = []
        for participation in participations {
            guard let instance = catalog.resolve(participation.challengeID), instance.challenge.active,
                instance.counts(at: event.occurredAt),
                instance.challenge.countsFrom == .start || event.occurredAt >= participation.joinedAt ?? .infinity,
                let rule = context.evaluator.ruleSet.rule(instance.challenge.metricRuleID)
            else { continue }
            if let events = rule.events, !events.contains(event.type) { continue }
            let result = try context.evaluator.evaluate(
                rule, input: input, options: EvaluationOptions(now: event.occurredAt))
            guard let delta = result.value?.numberValue, delta > 0 else { continue }
            let contribution = ChallengeContribution(
                eventKey: event.eventID, occurredAt: event.occurredAt, delta: delta,
                input: instance.challenge.completionRuleID == nil ? nil : eventJSON ?? event.json)
            effects.append(
                .challengeProgress(challengeID: instance.id, delta: delta, completionInput: contribution.input))
            effects += try consequences(
                of: [contribution], for: participation, in: instance, event: event, context: context)
        }
        return effects
    }

    /// What the user's events stored from `from` through the challenge's end (and grace)
    /// contribute to it, in time order: each evaluated by the metric as when it arrived.
    private func storedContributions(
        _ instance: ChallengeInstance, user: String, from: Double, through: Double? = nil, context: ConsumerContext
    ) throws -> [ChallengeContribution] {
        guard let rule = context.evaluator.ruleSet.rule(instance.challenge.metricRuleID) else { return [] }
        let events = try context.store.userEvents(
            user: user, from: max(from, instance.startsAt),
            through: through ?? instance.endsAt + instance.challenge.grace,
            filter: EventTypeFilter(types: Set(rule.events ?? []), excluding: [Self.joinEventType]),
            analytics: "habit_checked")
        var contributions: [ChallengeContribution] = []
        for event in events where !Self.checksADayAgain(event.analytics) {
            // As the metric saw it when it arrived: with the facts other features established.
            let json =
                event.analytics.map { Self.with(habitFacts: $0, event.json(user: user)) } ?? event.json(user: user)
            let result = try context.evaluator.evaluate(
                rule, input: JV(json), options: EvaluationOptions(now: event.occurredAt))
            guard let delta = result.value?.numberValue, delta > 0 else { continue }
            contributions.append(
                ChallengeContribution(
                    eventKey: event.eventID, occurredAt: event.occurredAt, delta: delta,
                    input: instance.challenge.completionRuleID == nil ? nil : json, eventRow: event.row))
        }
        return contributions
    }

    /// Whether habit facts say the check-in is of a day checked before and unchecked since
    /// (`checked_before`): it counted then, so it counts nothing again (toggling cannot
    /// inflate progress).
    static func checksADayAgain(_ habitFacts: JSON?) -> Bool {
        habitFacts?["checked_before"]?.boolValue == true
    }

    /// The event as ingested with the `facts` other features established for it (`habits`:
    /// `tracker_id`, `streak_days` for a habit check-in); nil when there are none.
    func eventWithFacts(_ event: Event, context: ConsumerContext) -> JSON? {
        var habits: JSON?
        for effect in context.effectsSoFar {
            if case .analyticsEvent("habit_checked", let properties) = effect { habits = .object(properties) }
        }
        return habits.map { Self.with(habitFacts: $0, event.json) }
    }

    /// `contributions` whose event's habit facts were made again during this event (a late
    /// check-in lengthened their streak), with those facts.
    static func revising(_ contributions: [ChallengeContribution], with facts: [String: JSON])
        -> [ChallengeContribution]
    {
        guard !facts.isEmpty else { return contributions }
        return contributions.map { contribution in
            guard let habits = facts[contribution.eventKey], let input = contribution.input else { return contribution }
            var revised = contribution
            revised.input = with(habitFacts: habits, input)
            return revised
        }
    }

    /// `event` (as rules see it) with `facts.habits`.
    static func with(habitFacts: JSON, _ event: JSON) -> JSON {
        guard case .object(var object) = event else { return event }
        object["facts"] = .object(["habits": habitFacts])
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
                    "head-to-head challenge `\(id)` already has its two sides: \(sides.joined(separator: " and "))",
                    field: FieldError(.invalid, at: "/payload/team", "must be \(sides.joined(separator: " or "))"))
            }
        } else if team != nil {
            throw Rejection(.invalid, "`payload.team` is only for head-to-head challenges")
        }
        let existing = try context.store.challengeParticipation(challenge: instance.id, user: event.userID)
        if let existing, let joinedAt = existing.joinedAt {
            // Already in: joining again changes nothing, unless this join happened earlier than
            // the one kept (it arrived late). Then the join moves back, and with `counts_from:
            // joined` the events between count too.
            guard event.occurredAt < joinedAt else { return [] }
            let contributions =
                instance.challenge.countsFrom == .joined
                ? try storedContributions(
                    instance, user: event.userID, from: event.occurredAt, through: joinedAt, context: context) : []
            var movedBack = existing
            movedBack.joinedAt = event.occurredAt
            return [.challengeJoined(challengeID: instance.id, team: existing.team, contributions: contributions)]
                + (try consequences(of: contributions, for: movedBack, in: instance, event: event, context: context))
        }
        // The user's events that arrived before the join count now, as if it had come first.
        let from = instance.challenge.countsFrom == .joined ? event.occurredAt : instance.startsAt
        let contributions = try storedContributions(instance, user: event.userID, from: from, context: context)
        let joined = ChallengeParticipation(
            challengeID: instance.id, userID: event.userID, team: team, value: existing?.value ?? 0,
            joinedAt: event.occurredAt, completedAt: existing?.completedAt,
            updatedAt: max(existing?.updatedAt ?? event.occurredAt, event.occurredAt))
        var consequences = try consequences(
            of: contributions, for: joined, in: instance, event: event, context: context)
        if let team, existing?.completedAt == nil,
            !consequences.contains(where: { $0.feature(ChallengeCompletedEffect.self) != nil }),
            let reached = try sideReached(instance, team: team, context: context), reached >= event.occurredAt
        {
            // A side that reached the target after this join (whose event arrived later)
            // completed every member then, this one too.
            consequences += completion(instance, event: event, at: reached, first: true)
        }
        return [
            .challengeJoined(challengeID: instance.id, team: team, contributions: contributions),
            .analyticsEvent(
                name: "challenge_joined",
                properties: ["challenge_id": .string(instance.id), "type": .string(instance.kind.rawValue)]),
        ] + consequences
    }

    /// When a head-to-head side reached the target in time order (its members' contributions
    /// stored so far); nil when it has not, or when a completion rule decides instead.
    private func sideReached(_ instance: ChallengeInstance, team: String, context: ConsumerContext) throws -> Double? {
        guard instance.kind == .headToHead, instance.challenge.completionRuleID == nil else { return nil }
        return try context.store.challengeCrossing(
            challenge: instance.id, team: team, threshold: Challenge.reachThreshold(of: instance.challenge.target)
        )?.occurredAt
    }

    // MARK: Progress

    /// Overtaking (from behind or level to ahead of a side that has started; the first step
    /// of all is not one) and completion, after `added` (in time order) counted for the
    /// event's user.
    private func consequences(
        of added: [ChallengeContribution], for participation: ChallengeParticipation, in instance: ChallengeInstance,
        event: Event, context: ConsumerContext
    ) throws -> [Effect] {
        guard let earliest = added.first else { return [] }
        let delta = added.reduce(0) { $0 + $1.delta }
        switch instance.kind {
        case .community:
            let group = try context.store.challengeTotals(challenge: instance.id).first { $0.team.isEmpty }
            // The exact time is found when the contributions are written (everyone's, in time order).
            let reaches: Bool
            if let done = group?.completedAt {
                // Reached already: only contributions that make the group reach it sooner (or
                // at the same moment by an event first in time order) change it; a late one
                // that does not is no new completion.
                reaches =
                    try earliest.occurredAt <= done
                    && reachesSooner(instance, adding: added, done: done, context: context)
            } else {
                reaches = try completes(
                    instance, value: (group?.value ?? 0) + delta, eventJSON: added.last?.input ?? event.json,
                    now: event.occurredAt, context: context)
            }
            guard reaches else { return [] }
            return [
                .challengeGroupCompleted(
                    challengeID: instance.id, target: instance.challenge.target, first: group?.completedAt == nil)
            ]
        case .headToHead:
            guard let team = participation.team else { return [] }
            var effects: [Effect] = []
            let totals = try context.store.challengeTotals(challenge: instance.id)
            let mine = totals.first { $0.team == team }?.value ?? 0
            if let other = totals.first(where: { !$0.team.isEmpty && $0.team != team }),
                other.value > 0, mine <= other.value, mine + delta > other.value
            {
                effects += try overtaking(instance, leader: team, other: other.team, event: event, context: context)
            } else if delta > 0, let other = totals.first(where: { !$0.team.isEmpty && $0.team != team }) {
                effects += try opponentProgress(
                    instance, side: team, value: mine + delta, opponent: other.team, opponentValue: other.value,
                    event: event, context: context)
            }
            let side = { try context.store.challengeContributions(challenge: instance.id, team: team) }
            if let at = try completion(
                of: participation, in: instance, value: mine, adding: added, stored: side, event: event,
                context: context)
            {
                effects += completion(instance, of: participation, event: event, at: at)
                // The side reached it: its other members complete then too.
                effects.append(
                    ChallengeSideCompletedEffect(
                        challengeID: instance.id, team: team, at: at, instance: instance, catalog: catalog
                    ).effect)
            }
            return effects
        case .solo, .recurring:
            let own = { try context.store.challengeContributions(challenge: instance.id, user: participation.userID) }
            guard
                let at = try completion(
                    of: participation, in: instance, value: participation.value, adding: added, stored: own,
                    event: event, context: context)
            else { return [] }
            return completion(instance, of: participation, event: event, at: at)
        }
    }

    /// Whether `added` (the event's user's contributions, none after `done`) moves the
    /// crossing of a community's target, reached at `done`, to an earlier contribution in time
    /// order. Contributions at that very moment, and a completion rule, are left to the
    /// completion effect (which finds the crossing as it stores them).
    private func reachesSooner(
        _ instance: ChallengeInstance, adding added: [ChallengeContribution], done: Double, context: ConsumerContext
    ) throws -> Bool {
        let threshold = Challenge.reachThreshold(of: instance.challenge.target)
        guard instance.challenge.completionRuleID == nil,
            let crossing = try context.store.challengeCrossing(
                challenge: instance.id, team: nil, threshold: threshold, notAfter: done),
            !added.contains(where: { $0.occurredAt == crossing.occurredAt })
        else { return true }
        let before =
            try context.store.challengeGroupValue(challenge: instance.id, before: crossing)
            + added.filter { $0.occurredAt < crossing.occurredAt }.reduce(0) { $0 + $1.delta }
        return before >= threshold
    }

    /// When the participation completes (or, already completed, completes sooner) with
    /// `added`: the `occurred_at` of the contribution at which the running sum of `stored()`
    /// and `added`, in time order, first completes it; nil when it does not (or not sooner).
    /// `value` is what `stored()` adds up to; events after the latest counted one decide
    /// without reading them.
    private func completion(
        of participation: ChallengeParticipation, in instance: ChallengeInstance, value: Double,
        adding added: [ChallengeContribution], stored: () throws -> [ChallengeContribution], event: Event,
        context: ConsumerContext
    ) throws -> Double? {
        guard let earliest = added.first, let latest = added.last else { return nil }
        let delta = added.reduce(0) { $0 + $1.delta }
        if let done = participation.completedAt, earliest.occurredAt >= done { return nil }
        if participation.completedAt == nil, added.count == 1, earliest.occurredAt >= participation.updatedAt {
            let reached = try completes(
                instance, value: value + delta, eventJSON: latest.input ?? event.json, now: event.occurredAt,
                context: context)
            return reached ? earliest.occurredAt : nil
        }
        if instance.challenge.completionRuleID == nil,
            value + delta < Challenge.reachThreshold(of: instance.challenge.target)
        {
            return nil
        }
        let previous = Self.revising(try stored(), with: context.revisedFacts(of: "habits"))
        // Kept before the ledger existed: what is stored does not add up, so time order cannot be replayed.
        guard abs(previous.reduce(0) { $0 + $1.delta } - value) < 1e-6 * max(1, abs(value)) else {
            let reached = try completes(
                instance, value: value + delta, eventJSON: latest.input ?? event.json, now: event.occurredAt,
                context: context)
            return participation.completedAt == nil && reached ? latest.occurredAt : nil
        }
        let known = Set(previous.map(\.eventKey))
        var running = 0.0
        for contribution in (previous + added.filter { !known.contains($0.eventKey) }).sorted(
            by: ChallengeContribution.inTimeOrder)
        {
            running += contribution.delta
            if try completes(
                instance, value: running, eventJSON: contribution.input ?? .null, now: contribution.occurredAt,
                context: context)
            {
                guard let done = participation.completedAt else { return contribution.occurredAt }
                return contribution.occurredAt < done ? contribution.occurredAt : nil
            }
        }
        return nil
    }

    /// Whether `value` completes the challenge: its `completion` rule over
    /// `{value, target, challenge, event}`, or value ≥ target.
    private func completes(
        _ instance: ChallengeInstance, value: Double, eventJSON: JSON, now: Double, context: ConsumerContext
    ) throws -> Bool {
        guard let id = instance.challenge.completionRuleID, let rule = context.evaluator.ruleSet.rule(id) else {
            return value >= Challenge.reachThreshold(of: instance.challenge.target)
        }
        let input = JSON.object([
            "value": .number(value), "target": .number(instance.challenge.target),
            "challenge": instance.json, "event": eventJSON,
        ])
        return try context.evaluator.evaluate(rule, input: JV(input), options: EvaluationOptions(now: now))
            .value?.boolValue ?? false
    }

    /// `participation` completed by a contribution at `at`: never before the user joined (what
    /// was done before the join counts, but the completion is at the join), and, completed
    /// already, only when sooner.
    private func completion(
        _ instance: ChallengeInstance, of participation: ChallengeParticipation, event: Event, at: Double
    ) -> [Effect] {
        let at = max(at, participation.joinedAt ?? at)
        if let done = participation.completedAt, at >= done { return [] }
        return completion(instance, event: event, at: at, first: participation.completedAt == nil)
    }

    /// Completed at `at`: the record, and the first time XP and badge, the celebration with
    /// the next challenge and the analytics event (all as of `at`). Completed sooner than kept:
    /// the record, its feed line and rewards move back, and so do the celebration and the
    /// analytics event while they are not yet sent.
    private func completion(_ instance: ChallengeInstance, event: Event, at: Double, first: Bool) -> [Effect] {
        let celebration = catalog.celebration(of: instance, for: event.userID, at: at)
        guard first else {
            return [.challengeCompleted(challengeID: instance.id, at: at, movedCelebration: celebration)]
        }
        var effects: [Effect] = [
            .challengeCompleted(challengeID: instance.id, at: at == event.occurredAt ? nil : at, movedCelebration: nil)
        ]
        for reward in instance.rewards(for: event.userID, at: at) {
            effects.append(
                Effect.rewardGranted(
                    reward: reward.reward, amount: reward.amount, badgeID: reward.badgeID, reason: reward.reason
                ).dated(at, eventTime: event.occurredAt))
        }
        effects.append(.reminderScheduled(celebration))
        effects.append(
            Effect.analyticsEvent(name: "challenge_completed", properties: instance.completedAnalytics)
                .dated(at, eventTime: event.occurredAt))
        return effects
    }

    /// The opponent's progress, told to the other side's members («Красные: 8 из 20 шагов в
    /// «Дуэль шагов». У вас 7 шагов», written when the push is read, in its recipient's locale): one pending notification per member, the latest replacing the one not
    /// sent yet, so a busy opponent is not a stream of pushes.
    private func opponentProgress(
        _ instance: ChallengeInstance, side: String, value: Double, opponent: String, opponentValue: Double,
        event: Event, context: ConsumerContext
    ) throws -> [Effect] {
        let text = ChallengeTexts.opponentProgress(instance, side: side, value: value, mine: opponentValue)
        return try context.store.challengeRanking(challenge: instance.id, team: opponent, limit: 100).map { member in
            .reminderScheduled(
                Reminder(
                    userID: member.userID, dogID: nil, kind: "challenge_opponent_progress:\(instance.id)",
                    dueAt: event.occurredAt,
                    payload: .object([
                        "challenge_id": .string(instance.id), "opponent": .string(side),
                        "opponent_value": .number(value), "value": .number(opponentValue),
                        "target": .number(instance.challenge.target), "text": text,
                    ])))
        }
    }

    /// Notifications when `leader`'s side overtakes `other`'s.
    private func overtaking(
        _ instance: ChallengeInstance, leader: String, other: String, event: Event, context: ConsumerContext
    ) throws -> [Effect] {
        var effects: [Effect] = []
        let texts = [
            (other, ChallengeTexts.overtaken(instance, by: leader)), (leader, ChallengeTexts.tookTheLead(instance)),
        ]
        for (side, text) in texts {
            for member in try context.store.challengeRanking(challenge: instance.id, team: side, limit: 100) {
                effects.append(
                    .reminderScheduled(
                        Reminder(
                            userID: member.userID, dogID: nil, kind: "challenge_overtaken:\(instance.id)",
                            dueAt: event.occurredAt,
                            payload: .object([
                                "challenge_id": .string(instance.id), "leader": .string(leader), "text": text,
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
