import Foundation
import JQ
import RuleEngine
import YAML

/// Reads `challenge:` documents (`Rules/challenges/*.yaml`); each metric (and custom
/// completion) becomes a rule compiled and checked with every other rule.
public struct ChallengeDocumentKind: DocumentKind {
    public let key = "challenge"

    public init() {}

    static let fields = [
        "challenge", "title", "description", "type", "metric", "completion", "target_value", "starts_at", "ends_at",
        "grace", "xp_reward", "badge_id", "active", "schedule", "counts_from", "unit",
    ]

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let fields = file.fields(root, what: "challenge", allowed: Self.fields),
            let id = fields.identifier("challenge", required: true)?.value
        else { return nil }
        var ok = true
        if id.contains("@") {
            file.error(
                "invalid_value", "a challenge id must not contain `@` (it separates recurring instances)",
                at: fields.start)
            ok = false
        }
        let title = fields.string("title", required: true)?.value
        var kind = Challenge.Kind.solo
        if let (text, node) = fields.string("type", required: true) {
            if let parsed = Challenge.Kind(rawValue: text) {
                kind = parsed
            } else {
                file.error(
                    "invalid_value",
                    "`type` is \(Challenge.Kind.allCases.map(\.rawValue).joined(separator: ", ")), found `\(text)`",
                    at: file.location(node))
                ok = false
            }
        } else {
            ok = false
        }
        let target = fields.number("target_value", within: 0.000001...1e12)?.value
        if !fields.has("target_value") { fields.missing("target_value", "how much completes the challenge") }
        let startsAt = fields.timestamp("starts_at")?.value
        let endsAt = fields.timestamp("ends_at")?.value
        var schedule: Challenge.Schedule?
        if kind == .recurring {
            if fields.has("starts_at") || fields.has("ends_at") {
                file.error(
                    "invalid_value", "a recurring challenge has a `schedule` instead of `starts_at`/`ends_at`",
                    at: fields.start)
                ok = false
            }
            if let node = fields.values["schedule"] {
                schedule = decodeSchedule(node, file: file)
                if schedule == nil { ok = false }
            } else {
                fields.missing(
                    "schedule", "e.g. {every: week, timezone: Europe/Berlin, from: 2026-11-30, until: 2027-11-29}")
                ok = false
            }
        } else {
            if fields.has("schedule") {
                file.error("invalid_value", "only a recurring challenge has a `schedule`", at: fields.start)
                ok = false
            }
            if !fields.has("starts_at") { fields.missing("starts_at", "when it starts, with its offset") }
            if !fields.has("ends_at") { fields.missing("ends_at", "when it ends, with its offset") }
            if let startsAt, let endsAt, endsAt <= startsAt {
                file.error(
                    "invalid_value", "`ends_at` must be after `starts_at`",
                    at: fields.location(of: "ends_at"))
                ok = false
            }
            if startsAt == nil || endsAt == nil { ok = false }
        }
        let grace =
            fields.duration("grace", within: .zero ... .seconds(7 * 86_400))
            .map { Double($0.components.seconds) } ?? Challenge.defaultGrace
        let xp = fields.number("xp_reward", within: 0...1e9)?.value
        let badge = fields.string("badge_id")?.value
        let unit = fields.identifier("unit")?.value
        var rules: [RuleDefinition] = []
        let metricID = "challenge.\(id).metric"
        if let node = fields.values["metric"] {
            if let rule = metricRule(node, parent: fields, id: metricID, challenge: id, file: file) {
                rules.append(rule)
            } else {
                ok = false
            }
        } else {
            fields.missing("metric", "a jq expression over the event giving how much it contributes")
            ok = false
        }
        var completionID: String?
        if kind == .community, let node = fields.values["completion"] {
            // Decided per participant in time order; a group's total is everyone's, so a rule on
            // it would be decided in the order events arrive.
            file.error(
                "invalid_value",
                "a community goal completes when the group's total reaches `target_value`; a `completion` rule is for solo, recurring and head-to-head challenges",
                at: file.location(node))
            ok = false
        } else if let expression = file.expression(fields, "completion") {
            let ruleID = "challenge.\(id).completion"
            completionID = ruleID
            rules.append(
                RuleDefinition(
                    id: ruleID, kind: RuleKind.challengeCompletion,
                    description: "completes challenge `\(id)`", location: expression.start,
                    variants: [Variant(name: RuleDefinition.defaultVariantName, expression: expression)]))
        }
        var countsFrom = Challenge.CountsFrom.start
        if let (text, node) = fields.string("counts_from") {
            if let parsed = Challenge.CountsFrom(rawValue: text) {
                countsFrom = parsed
            } else {
                file.error(
                    "invalid_value",
                    "`counts_from` is \(Challenge.CountsFrom.allCases.map(\.rawValue).joined(separator: " or ")), found `\(text)`",
                    at: file.location(node))
                ok = false
            }
        }
        guard ok, let title, let target else { return nil }
        let challenge = Challenge(
            id: id, title: title, description: fields.string("description")?.value, kind: kind, metricRuleID: metricID,
            completionRuleID: completionID, target: target, startsAt: startsAt, endsAt: endsAt, grace: grace,
            xpReward: xp, badgeID: badge, unit: unit, active: fields.bool("active") ?? true, countsFrom: countsFrom,
            schedule: schedule,
            windows: schedule?.windows(of: id) ?? [], location: fields.start)
        return DecodedDocument(value: challenge, rules: rules)
    }

    /// `metric: EXPR` or `metric: {expr: EXPR, events: [types]}`.
    private func metricRule(
        _ node: YAMLNode, parent: YAMLFields, id: String, challenge: String, file: DocumentFile
    ) -> RuleDefinition? {
        let kind = RuleKind.challengeMetric
        let description = "what an event contributes to challenge `\(challenge)`"
        if node.scalar != nil {
            guard let expression = file.expression(parent, "metric") else { return nil }
            return RuleDefinition(
                id: id, kind: kind, description: description, location: expression.start,
                variants: [Variant(name: RuleDefinition.defaultVariantName, expression: expression)])
        }
        guard let fields = file.fields(node, what: "metric", allowed: ["expr", "events"]) else { return nil }
        guard let expression = file.expression(fields, "expr") else {
            if !fields.has("expr") { fields.missing("expr", "a jq expression over the event") }
            return nil
        }
        return RuleDefinition(
            id: id, kind: kind, description: description, location: expression.start,
            variants: [Variant(name: RuleDefinition.defaultVariantName, expression: expression)],
            events: fields.strings("events")?.map(\.value))
    }

    private func decodeSchedule(_ node: YAMLNode, file: DocumentFile) -> Challenge.Schedule? {
        guard let fields = file.fields(node, what: "schedule", allowed: ["every", "timezone", "from", "until", "mode"])
        else { return nil }
        var ok = true
        var period = Challenge.Schedule.Period.week
        if let (text, node) = fields.string("every", required: true) {
            if let parsed = Challenge.Schedule.Period(rawValue: text) {
                period = parsed
            } else {
                file.error("invalid_value", "`every` is week or month, found `\(text)`", at: file.location(node))
                ok = false
            }
        } else {
            ok = false
        }
        let zone = fields.string("timezone")?.value ?? "UTC"
        if TimeZone(identifier: zone) == nil {
            file.error(
                "invalid_value", "unknown time zone `\(zone)` (an IANA name such as Europe/Berlin)", at: fields.start)
            ok = false
        }
        func date(_ key: String) -> String? {
            guard let (text, node) = fields.string(key, required: true) else { return nil }
            let parts = text.split(separator: "-")
            guard parts.count == 3, parts.allSatisfy({ Int($0) != nil }) else {
                file.error(
                    "invalid_value", "`\(key)` is a local date written YYYY-MM-DD, found `\(text)`",
                    at: file.location(node))
                return nil
            }
            return text
        }
        let from = date("from")
        let until = date("until")
        if let from, let until, until <= from {
            file.error("invalid_value", "`until` must be after `from`", at: fields.start)
            ok = false
        }
        var mode = Challenge.Kind.solo
        if let (text, node) = fields.string("mode") {
            guard let parsed = Challenge.Kind(rawValue: text), parsed == .solo || parsed == .community else {
                file.error("invalid_value", "`mode` is solo or community, found `\(text)`", at: file.location(node))
                return nil
            }
            mode = parsed
        }
        guard ok, let from, let until else { return nil }
        return Challenge.Schedule(every: period, timeZone: zone, from: from, until: until, mode: mode)
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        var seen: [String: SourceLocation] = [:]
        for challenge in documents.compactMap({ $0.value as? Challenge }) {
            if seen[challenge.id] != nil {
                context.error(
                    "duplicate_challenge", "challenge `\(challenge.id)` is defined twice", at: challenge.location)
            }
            seen[challenge.id] = challenge.location
        }
    }
}
