import Core
import FeatureKit
import JQ
import RuleEngine
import Store

/// A user's habit statistics: every `habit_stat` rule of the rule set (in file order)
/// evaluated on the user's ``HabitFacts``. The statistic's name is the rule id without its
/// `habits.` prefix (`habits.best_period` → `best_period`).
public enum HabitStatistics {
    /// The `habit_stat` rules, in rule-set order.
    public static func rules(in ruleSet: RuleSet) -> [RuleDefinition] {
        ruleSet.rules.filter { $0.kind.name == "habit_stat" }
    }

    /// The statistic a rule gives.
    public static func name(of rule: RuleDefinition) -> String {
        rule.id.hasPrefix("habits.") ? String(rule.id.dropFirst("habits.".count)) : rule.id
    }

    /// `{has_data, <statistic>: number…}`; with no check-ins every statistic is null (there is
    /// nothing to show), otherwise every one is a number (zero where there is none).
    ///
    /// Kept in the store's ``DerivedCache`` under the user's ``StoreReader/habitDataVersion(user:)``
    /// and the rule set's revision, so a screen shown again before the user's habit data or the
    /// rules change costs one read; every instance reads the version from the shared store, so
    /// none serves statistics of data another one changed. Not kept: an answer with a
    /// `degraded` statistic, or while ``isCacheable(by:)`` says no.
    public static func json(user: String, store: any StoreReader, evaluator: RuleEvaluator) throws -> JSON {
        // The version first: data changed after this read is newer than the version it is kept under.
        let version = try store.habitDataVersion(user: user)
        guard isCacheable(by: evaluator) else { return try computed(user: user, store: store, evaluator: evaluator) }
        let key = "habit-stats\u{0}\(user)\u{0}\(version)\u{0}\(evaluator.ruleSet.revision)"
        if let kept = store.derivedCache.kept(key, as: JSON.self) { return kept }
        let stats = try computed(user: user, store: store, evaluator: evaluator)
        if stats["degraded"] == nil { _ = store.derivedCache.value(key) { stats } }
        return stats
    }

    /// Whether the statistics depend on nothing but the user's habit data and the rules: no
    /// `habit_stat` rule reads the clock (`now`; any text containing it counts), none is
    /// quarantined (an admin lifts a quarantine without a new revision), no decision log wants
    /// every evaluation recorded, and the rule set has a revision to keep them under.
    public static func isCacheable(by evaluator: RuleEvaluator) -> Bool {
        guard evaluator.decisionLog == nil, !evaluator.ruleSet.revision.isEmpty else { return false }
        return rules(in: evaluator.ruleSet).allSatisfy { rule in
            !evaluator.quarantined.contains(rule.id) && (evaluator.quarantinedInputs[rule.id]?.isEmpty ?? true)
                && !rule.variants.contains { $0.expression.source.contains("now") }
                && !(rule.fallback?.source.contains("now") ?? false)
        }
    }

    /// The statistics computed from the stored trackers and check-ins, never from a kept answer.
    public static func computed(user: String, store: any StoreReader, evaluator: RuleEvaluator) throws -> JSON {
        let trackers = try store.habitTrackers(user: user)
        let days = try checkinDays(user: user, store: store)
        return try json(
            facts: HabitFacts.value(trackers: trackers, days: days), hasData: days.values.contains { !$0.isEmpty },
            evaluator: evaluator)
    }

    /// Each tracker's check-in days (``StoreReader/habitCheckinDays(user:)``), kept in the
    /// store's ``DerivedCache`` per user with the version each tracker's days were read at
    /// (``StoreReader/habitCheckinVersions(user:)``): a screen after a check-in re-reads that
    /// tracker's days alone, a first screen (or one after most trackers changed) all of them in
    /// one read. The versions are read first, so days kept are never older than their version.
    static func checkinDays(user: String, store: any StoreReader) throws -> [String: [Int]] {
        let versions = try store.habitCheckinVersions(user: user)
        let key = "habit-days\u{0}" + user
        var kept = store.derivedCache.kept(key, as: KeptCheckinDays.self) ?? KeptCheckinDays()
        let stale = versions.filter { kept.versions[$0.key] != $0.value }.map(\.key)
        let gone = kept.versions.keys.filter { versions[$0] == nil }
        guard !stale.isEmpty || !gone.isEmpty else { return kept.days }
        // Trackers without a check-in have no entry, as in habitCheckinDays(user:).
        if stale.count * 2 > versions.count {
            let all = try store.habitCheckinDays(user: user)
            for id in stale { kept.days[id] = all[id] }
        } else {
            for id in stale {
                let days = try store.habitCheckinDays(user: user, tracker: id)
                kept.days[id] = days.isEmpty ? nil : days
            }
        }
        for id in stale { kept.versions[id] = versions[id] }
        for id in gone {
            kept.versions[id] = nil
            kept.days[id] = nil
        }
        store.derivedCache.replace(key, with: kept)
        return kept.days
    }

    /// A user's check-in days by tracker, with the version each tracker's were read at.
    private struct KeptCheckinDays {
        var versions: [String: Int64] = [:]
        var days: [String: [Int]] = [:]
    }

    /// The statistics of already built facts.
    public static func json(facts: JSON, hasData: Bool, evaluator: RuleEvaluator) throws -> JSON {
        try json(facts: JV(facts), hasData: hasData, evaluator: evaluator)
    }

    /// The statistics of facts already built as a libjq value.
    public static func json(facts input: JV, hasData: Bool, evaluator: RuleEvaluator) throws -> JSON {
        var object: JSONObject = ["has_data": .bool(hasData)]
        let rules = rules(in: evaluator.ruleSet)
        guard hasData else {
            for rule in rules { object[name(of: rule)] = .null }
            return .object(object)
        }
        var degraded: [Degradation] = []
        for rule in rules {
            // A statistic whose rule fails answers with its fallback, or null; `degraded` says
            // which (the statistics never fail as a whole).
            do {
                let result = try evaluator.evaluate(
                    rule, input: input, options: EvaluationOptions(fallbackOnError: true))
                object[name(of: rule)] = result.value ?? .null
                if let degradation = Degradation.of(result) { degraded.append(degradation) }
            } catch {
                object[name(of: rule)] = .null
                degraded.append(Degradation(rule: rule.id, error: error.code.rawValue, usedFallback: false))
            }
        }
        if !degraded.isEmpty { object["degraded"] = .array(degraded.map(\.json)) }
        return .object(object)
    }

    /// `stats` with the screen's texts in `texts`' locale: `title` («Статистика») and `titles`,
    /// each statistic's name («Лучший период») from its key `habits.stats.<statistic>` (a
    /// statistic whose key no locale has is left out of `titles`).
    public static func titled(_ stats: JSON, texts: RequestTexts) -> JSON {
        guard case .object(var object) = stats else { return stats }
        var titles: JSONObject = [:]
        for name in object.keys where name != "has_data" && name != "degraded" {
            let key = titleKeyPrefix + name
            if texts.catalog.has(key) { titles[name] = .string(texts(key)) }
        }
        object["title"] = .string(texts(titleKey))
        object["titles"] = .object(titles)
        object["locale"] = .string(texts.locale)
        return .object(object)
    }

    /// The statistics screen's title key («Статистика»).
    public static let titleKey = "habits.stats.title"
    /// A statistic's title is the key `habits.stats.<statistic>`.
    public static let titleKeyPrefix = "habits.stats."
    /// The keys of the bundled statistics, with what renders them.
    public static var textUses: [TextUse] {
        let route = "GET /v1/users/{user_id}/habits/stats"
        return [TextUse(titleKey, usedBy: route + " (title)")]
            + ["best_period", "perfect_days", "trackers_completed", "average"].map {
                TextUse(titleKeyPrefix + $0, usedBy: route + " (titles)")
            }
    }
}
