import Core
import Foundation
import JQ
import RuleEngine

/// A challenge from `Rules/challenges/*.yaml`: a time-bound goal users join; events count
/// toward it through its `challenge_metric` rule.
public struct Challenge: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case solo, community
        case headToHead = "head_to_head"
        case recurring
    }

    /// For recurring challenges: each instance is a week or a month of local time.
    public struct Schedule: Sendable {
        public enum Period: String, Sendable { case week, month }
        public var every: Period
        /// The time zone whose midnights start the instances (DST-aware).
        public var timeZone: String
        /// The first instance starts on this local date's midnight (a Monday for weeks, the
        /// first of a month for months); instances start until `until` (exclusive).
        public var from: String
        public var until: String
        /// What each instance is: solo (default) or community.
        public var mode: Kind
    }

    public var id: String
    public var title: String
    public var description: String?
    public var kind: Kind
    /// The `challenge_metric` rule deciding what an event contributes.
    public var metricRuleID: String
    /// The `challenge_completion` rule, when completion is not simply value ≥ target.
    public var completionRuleID: String?
    public var target: Double
    /// Seconds since 1970 (nil for a recurring definition: its instances have them).
    public var startsAt: Double?
    public var endsAt: Double?
    /// How long after `ends_at` events still count.
    public var grace: Double
    public var xpReward: Double?
    public var badgeID: String?
    /// What `target_value` and every amount count (`km`, `steps`, `minutes`, `days`): the locale
    /// files write an amount as `challenges.unit.<unit>` («8 500 шагов»).
    public var unit: String?
    public var active: Bool
    /// Which of a participant's events count: all in the window (`start`, the default) or
    /// only those from the join on (`joined`), judged by `occurred_at` either way.
    public var countsFrom: CountsFrom = .start
    public var schedule: Schedule?
    /// A recurring challenge's instance windows (id, start, end), computed once when the rules
    /// load; empty for the other types.
    public var windows: [Window] = []
    public var location: SourceLocation

    /// One recurring instance's id and window.
    public struct Window: Sendable {
        public var id: String
        public var startsAt: Double
        public var endsAt: Double
    }

    /// Where a participant's counting starts, by `occurred_at`.
    public enum CountsFrom: String, Sendable, CaseIterable {
        case start, joined
    }

    /// The least value that reaches `target`: sums kept in another order differ in their last
    /// bits, so a value within a billionth of the target reaches it.
    public static func reachThreshold(of target: Double) -> Double {
        target - 1e-9 * max(1, abs(target))
    }

    /// The default grace.
    public static let defaultGrace = 300.0
}

/// One challenge users can join: a solo, community or head-to-head challenge, or one instance
/// of a recurring one (`weekly-steps@2026-11-30`).
public struct ChallengeInstance: Sendable {
    public var id: String
    public var challenge: Challenge
    /// What the instance is (a recurring challenge's instances are solo or community).
    public var kind: Challenge.Kind
    public var startsAt: Double
    public var endsAt: Double

    /// Whether an event at `occurredAt` counts: `starts_at ≤ occurred_at ≤ ends_at + grace`.
    public func counts(at occurredAt: Double) -> Bool {
        startsAt <= occurredAt && occurredAt <= endsAt + challenge.grace
    }

    public var json: JSON {
        var object: JSONObject = [
            "id": .string(id), "challenge_id": .string(challenge.id), "title": .string(challenge.title),
            "type": .string(kind.rawValue), "target_value": .number(challenge.target),
            "starts_at": .string(Timestamp.format(startsAt)), "ends_at": .string(Timestamp.format(endsAt)),
            "grace_seconds": .number(challenge.grace), "active": .bool(challenge.active),
            "counts_from": .string(challenge.countsFrom.rawValue),
        ]
        object["description"] = challenge.description.map(JSON.string) ?? .null
        object["xp_reward"] = challenge.xpReward.map(JSON.number) ?? .null
        object["badge_id"] = challenge.badgeID.map(JSON.string) ?? .null
        object["recurring"] = .bool(challenge.kind == .recurring)
        // CH-12: the FCM topic the app subscribes to at join.
        object["topic"] = .string(ChallengeTopic.name(of: id))
        return .object(object)
    }
}
