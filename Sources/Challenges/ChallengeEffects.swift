import Core
import Engine
import Store

/// A user joined a challenge (on a head-to-head side), with what their events stored before
/// the join contribute to it (`counts_from`).
public struct ChallengeJoinedEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var team: String?
    /// The user's stored events that count from the join on, in time order.
    public var contributions: [ChallengeContribution] = []

    public var typeName: String { "challenge_joined" }
    public var label: String { "challenge_joined(\(challengeID))" }
    public var members: JSONObject {
        [
            "challenge_id": .string(challengeID), "team": team.map(JSON.string) ?? .null,
            "counted_events": .number(Double(contributions.count)),
            "counted_value": .number(contributions.reduce(0) { $0 + $1.delta }),
        ]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.joinChallenge(
            challenge: challengeID, user: event.userID, team: team, at: event.occurredAt, event: eventRow)
        for contribution in contributions {
            try store.addChallengeContribution(challenge: challengeID, user: event.userID, contribution)
        }
    }
}

/// A community challenge's group reached its target (or, after a late event, reached it
/// sooner, or at the same moment by another user's event first in time order). Applied after the event's contributions: the completion time is where everyone's
/// contributions, in time order, first reach the target, and the `challenge_group_completed`
/// analytics (the first time) is dated then and told as the user whose event reached it.
public struct ChallengeGroupCompletedEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var target: Double
    /// True the first time the group completes (then the analytics event is written).
    public var first: Bool

    public var typeName: String { "challenge_group_completed" }
    public var label: String { "challenge_group_completed(\(challengeID))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID)] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        let kept = try store.challengeTotals(challenge: challengeID).first { $0.team.isEmpty }?.completedAt
        let crossing = try store.challengeCrossing(
            challenge: challengeID, team: nil, threshold: Challenge.reachThreshold(of: target), notAfter: kept)
        let at = crossing?.occurredAt ?? event.occurredAt
        let moved = try store.completeChallengeGroup(challenge: challengeID, at: at)
        guard moved || !first else { return }
        let participants = try store.challengeParticipants(challenge: challengeID, joinedBy: at)
        let analytics = AnalyticsEvent(
            userID: crossing?.userID ?? event.userID, name: "challenge_group_completed", occurredAt: at,
            properties: ["challenge_id": .string(challengeID), "participants": .number(Double(participants))])
        if first {
            try store.appendAnalytics(analytics, event: eventRow)
        } else {
            try store.redateChallengeAnalytics(analytics, challenge: challengeID, ofUser: nil)
        }
    }
}

/// A head-to-head side reached the target at `at`: its other members are credited then too
/// (completion, XP and badge once, the celebration), whoever's event it was.
public struct ChallengeSideCompletedEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var team: String
    public var at: Double
    let instance: ChallengeInstance
    let catalog: ChallengeCatalog

    public var typeName: String { "challenge_side_completed" }
    public var label: String { "challenge_side_completed(\(challengeID)/\(team))" }
    public var members: JSONObject {
        ["challenge_id": .string(challengeID), "team": .string(team), "completed_at": .string(Timestamp.format(at))]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try ChallengeCrediting.credit(
            instance, reached: at, team: team, except: event.userID, catalog: catalog, store: store)
    }

    public static func == (a: ChallengeSideCompletedEffect, b: ChallengeSideCompletedEffect) -> Bool {
        (a.challengeID, a.team, a.at) == (b.challengeID, b.team, b.at)
    }
}

/// A user's progress in a challenge grew by `delta`.
public struct ChallengeProgressEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var delta: Double
    /// The event as a custom completion rule sees it, kept with the contribution.
    public var completionInput: JSON?
    /// Distinguishes progress a rule adds from the challenge's own metric for the same event.
    public var byRule = false

    public var typeName: String { "challenge_progress" }
    public var label: String { "challenge_progress(\(challengeID) +\(JSON.format(number: delta)))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID), "delta": .number(delta)] }

    /// Counts once, in the contributions ledger, keyed by the event.
    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.addChallengeContribution(
            challenge: challengeID, user: event.userID,
            ChallengeContribution(
                eventKey: byRule ? event.eventID + "#rule" : event.eventID, occurredAt: event.occurredAt,
                delta: delta, input: completionInput, eventRow: eventRow))
    }

    /// Rules may add progress: `{type: challenge_progress, challenge_id, delta ≥ 0}`.
    static let type = EffectType("challenge_progress") { fields, _, _ throws(FieldError) in
        let challenge = try fields.string("challenge_id")
        let delta = try fields.number("delta")
        guard delta >= 0 else { throw fields.fail("delta", .outOfRange, "must be ≥ 0") }
        try fields.finish()
        return ChallengeProgressEffect(challengeID: challenge, delta: delta, byRule: true).effect
    }
}

/// A user completed a challenge.
public struct ChallengeCompletedEffect: FeatureEffect, Equatable {
    public var challengeID: String
    /// When: the `occurred_at` of the contribution that completed it in time order (nil: the event's).
    public var at: Double?
    /// For a completion kept before and now moved back: its celebration as of `at`.
    public var movedCelebration: Reminder?

    public var typeName: String { "challenge_completed" }
    public var label: String { "challenge_completed(\(challengeID))" }
    public var members: JSONObject {
        var members: JSONObject = ["challenge_id": .string(challengeID)]
        if let at { members["completed_at"] = .string(Timestamp.format(at)) }
        return members
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.completeChallenge(
            challenge: challengeID, user: event.userID, at: at ?? event.occurredAt, movedCelebration: movedCelebration)
    }

    /// Rules may complete a challenge: `{type: challenge_completed, challenge_id}`.
    static let type = EffectType("challenge_completed") { fields, _, _ throws(FieldError) in
        let challenge = try fields.string("challenge_id")
        try fields.finish()
        return ChallengeCompletedEffect(challengeID: challenge).effect
    }
}

extension Effect {
    static func challengeJoined(challengeID: String, team: String?, contributions: [ChallengeContribution]) -> Effect {
        ChallengeJoinedEffect(challengeID: challengeID, team: team, contributions: contributions).effect
    }
    static func challengeGroupCompleted(challengeID: String, target: Double, first: Bool) -> Effect {
        ChallengeGroupCompletedEffect(challengeID: challengeID, target: target, first: first).effect
    }
    static func challengeProgress(challengeID: String, delta: Double, completionInput: JSON?) -> Effect {
        ChallengeProgressEffect(challengeID: challengeID, delta: delta, completionInput: completionInput).effect
    }
    static func challengeCompleted(challengeID: String, at: Double?, movedCelebration: Reminder?) -> Effect {
        ChallengeCompletedEffect(challengeID: challengeID, at: at, movedCelebration: movedCelebration).effect
    }
}

extension ChallengesFeature {
    /// Rules may add progress and complete; joins and group completion only the challenges make.
    public var effectTypes: [EffectType] {
        [
            EffectType("challenge_joined", madeBy: "the challenges"),
            EffectType("challenge_group_completed", madeBy: "the challenges"), ChallengeProgressEffect.type,
            ChallengeCompletedEffect.type,
        ]
    }
}

/// The ledger's kept inputs of check-ins whose habit facts a late check-in made again (their
/// streak is longer in time order): a custom completion rule reads them as they are now.
public struct ChallengeInputsRevisedEffect: FeatureEffect, Equatable {
    /// The new habit facts, by `event_id`.
    public var habitFacts: [String: JSON]

    public var typeName: String { "challenge_inputs_revised" }
    public var label: String { "challenge_inputs_revised(\(habitFacts.count))" }
    public var members: JSONObject { ["event_ids": .array(habitFacts.keys.sorted().map(JSON.string))] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        for (key, facts) in habitFacts.sorted(by: { $0.key < $1.key }) {
            var inputs: [(String, JSON)] = []
            try store.query(
                "SELECT challenge_id, input FROM challenge_contributions WHERE user_id = ? AND event_key = ? AND input IS NOT NULL",
                [.text(event.userID), .text(key)]
            ) { row in
                guard let challenge = row.text(0), let text = row.text(1) else { return }
                inputs.append((challenge, try JSONParser().parse(text)))
            }
            for (challenge, input) in inputs {
                _ = try store.run(
                    "UPDATE challenge_contributions SET input = ? WHERE challenge_id = ? AND user_id = ? AND event_key = ?",
                    [
                        .text(ChallengesConsumer.with(habitFacts: facts, input).compactText), .text(challenge),
                        .text(event.userID), .text(key),
                    ])
            }
        }
    }
}
