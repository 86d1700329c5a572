import Core
import Engine
import Store

/// A user joined a challenge (on a head-to-head side).
public struct ChallengeJoinedEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var team: String?

    public var typeName: String { "challenge_joined" }
    public var label: String { "challenge_joined(\(challengeID))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID), "team": team.map(JSON.string) ?? .null] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.joinChallenge(
            challenge: challengeID, user: event.userID, team: team, at: event.occurredAt, event: eventRow)
    }
}

/// A community challenge's group reached its target.
public struct ChallengeGroupCompletedEffect: FeatureEffect, Equatable {
    public var challengeID: String

    public var typeName: String { "challenge_group_completed" }
    public var label: String { "challenge_group_completed(\(challengeID))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID)] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.completeChallengeGroup(challenge: challengeID, at: event.occurredAt)
    }
}

/// A user's progress in a challenge grew by `delta`.
public struct ChallengeProgressEffect: FeatureEffect, Equatable {
    public var challengeID: String
    public var delta: Double

    public var typeName: String { "challenge_progress" }
    public var label: String { "challenge_progress(\(challengeID) +\(JSON.format(number: delta)))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID), "delta": .number(delta)] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.addChallengeProgress(
            challenge: challengeID, user: event.userID, delta: delta, at: event.occurredAt)
    }

    /// Rules may add progress: `{type: challenge_progress, challenge_id, delta ≥ 0}`.
    static let type = EffectType("challenge_progress") { fields, _, _ throws(EffectDecodingError) in
        let challenge = try fields.string("challenge_id")
        let delta = try fields.number("delta")
        guard delta.isFinite, delta >= 0 else { throw EffectDecodingError("challenge_progress `delta` must be ≥ 0") }
        try fields.finish("challenge_progress")
        return ChallengeProgressEffect(challengeID: challenge, delta: delta).effect
    }
}

/// A user completed a challenge.
public struct ChallengeCompletedEffect: FeatureEffect, Equatable {
    public var challengeID: String

    public var typeName: String { "challenge_completed" }
    public var label: String { "challenge_completed(\(challengeID))" }
    public var members: JSONObject { ["challenge_id": .string(challengeID)] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.completeChallenge(challenge: challengeID, user: event.userID, at: event.occurredAt)
    }

    /// Rules may complete a challenge: `{type: challenge_completed, challenge_id}`.
    static let type = EffectType("challenge_completed") { fields, _, _ throws(EffectDecodingError) in
        let challenge = try fields.string("challenge_id")
        try fields.finish("challenge_completed")
        return ChallengeCompletedEffect(challengeID: challenge).effect
    }
}

extension Effect {
    static func challengeJoined(challengeID: String, team: String?) -> Effect {
        ChallengeJoinedEffect(challengeID: challengeID, team: team).effect
    }
    static func challengeGroupCompleted(challengeID: String) -> Effect {
        ChallengeGroupCompletedEffect(challengeID: challengeID).effect
    }
    static func challengeProgress(challengeID: String, delta: Double) -> Effect {
        ChallengeProgressEffect(challengeID: challengeID, delta: delta).effect
    }
    static func challengeCompleted(challengeID: String) -> Effect {
        ChallengeCompletedEffect(challengeID: challengeID).effect
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
