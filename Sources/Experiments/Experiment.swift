import Core
import JQ
import RuleEngine

/// An A/B experiment from `Rules/experiments.yaml`: who takes part and which variation they
/// get, by GrowthBook's algorithm.
public struct Experiment: Sendable {
    /// The id rules and onboarding flows name in `experiment:`.
    public var key: String
    public var description: String?
    /// Variation names; the first is the control.
    public var variations: [String]
    /// One weight per variation; nil means equal weights.
    public var weights: [Double]?
    /// The share of subjects that take part, 0…1.
    public var coverage: Double
    /// `user_id` or `dog_id`.
    public var hashAttribute: String
    /// 1 or 2.
    public var hashVersion: Int
    /// Hashed with the subject's id; the key unless set.
    public var seed: String
    public var active: Bool
    /// Seconds since 1970; outside `[startsAt, endsAt)` nobody is assigned.
    public var startsAt: Double?
    public var endsAt: Double?
    /// Raising it reassigns everyone by the current weights (sticky assignments of a lower
    /// version are replaced).
    public var bucketVersion: Int
    /// The variation everyone gets once the experiment is concluded (nobody is assigned or
    /// exposed any more); nil while it runs.
    public var winner: String? = nil
    /// The goal metrics the report compares the variations on.
    public var metrics: [ExperimentMetric] = []
    /// Metrics watched for harm, reported the same way.
    public var guardrails: [ExperimentMetric] = []
    public var location: SourceLocation

    /// The hash attributes a subject has.
    public static let hashAttributes = ["user_id", "dog_id"]

    /// One weight per variation: the configured ones, else equal.
    public var effectiveWeights: [Double] {
        weights ?? Array(repeating: 1 / Double(variations.count), count: variations.count)
    }

    /// Each variation's range of the hash space.
    public var ranges: [GrowthBook.BucketRange] {
        GrowthBook.bucketRanges(count: variations.count, coverage: coverage, weights: weights)
    }

    /// Whether the experiment assigns anyone at `now`; nil when it does, otherwise why not.
    public func inactiveReason(at now: Double) -> Assignment.Reason? {
        if !active { return .inactive }
        if let startsAt, now < startsAt { return .notStarted }
        if let endsAt, now >= endsAt { return .ended }
        return nil
    }

    /// The experiment as `journey experiments --format json` shows it.
    public var json: JSON {
        var object: JSONObject = ["key": .string(key)]
        object["description"] = description.map(JSON.string) ?? .null
        object["active"] = .bool(active)
        object["hash_attribute"] = .string(hashAttribute)
        object["hash_version"] = .number(Double(hashVersion))
        object["seed"] = .string(seed)
        object["coverage"] = .number(coverage)
        object["bucket_version"] = .number(Double(bucketVersion))
        object["winner"] = winner.map(JSON.string) ?? .null
        object["starts_at"] = startsAt.map { .string(Timestamp.format($0)) } ?? .null
        object["ends_at"] = endsAt.map { .string(Timestamp.format($0)) } ?? .null
        object["metric_definitions"] = .array(metrics.map(\.json))
        object["guardrails"] = .array(guardrails.map(\.json))
        let ranges = ranges
        object["variations"] = .array(
            variations.indices.map { index in
                .object([
                    "name": .string(variations[index]),
                    "weight": .number(weights?[index] ?? 1 / Double(variations.count)),
                    "range": .array([.number(ranges[index].start), .number(ranges[index].end)]),
                ])
            })
        return .object(object)
    }
}

/// Every experiment of a rule set (the `experiments:` documents).
public struct ExperimentCatalog: Sendable {
    public var experiments: [Experiment]

    public init(_ experiments: [Experiment]) {
        self.experiments = experiments
    }

    /// The experiments of every `experiments:` document of `ruleSet`.
    public init(ruleSet: RuleSet) {
        self.init(ruleSet.documents(of: ExperimentList.self).flatMap(\.experiments))
    }

    public subscript(key: String) -> Experiment? {
        experiments.first { $0.key == key }
    }

    /// What to say when `key` names no experiment: `no experiment `x`; did you mean `y`?`.
    public func unknown(_ key: String) -> String {
        var message = "no experiment `\(key)`"
        if let suggestion = closestMatch(to: key, in: experiments.map(\.key)) {
            message += "; did you mean `\(suggestion)`?"
        }
        return message
    }
}

/// One `experiments:` document.
public struct ExperimentList: Sendable {
    public var experiments: [Experiment]
}
