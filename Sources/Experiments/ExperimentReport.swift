import Core
import ExperimentStatistics
import JQ
import RuleEngine
import Store

/// An experiment's results from the store, as GrowthBook's frequentist engine computes them:
/// per variation the users exposed and, per metric (and guardrail), how many converted within
/// the metric's window after their first exposure, with the difference to the control
/// (absolute and relative, a 95% interval, a two-sided p-value); the sample-ratio check
/// against the configured weights; and the users exposed to more than one variation, who are
/// counted and left out.
public struct ExperimentReport: Sendable {
    /// Below this p-value the split is flagged as a sample ratio mismatch.
    public static let mismatchThreshold = 0.001
    /// A variation with fewer users than this is not enough traffic for the check.
    public static let minimumUsers = 8

    /// Users exposed to one variation (those the analysis counts).
    public struct VariationUsers: Sendable, Equatable {
        public var variation: String
        public var weight: Double
        public var users: Int
    }

    /// The sample-ratio check (gbstats' `check_srm`).
    public struct SampleRatio: Sendable, Equatable {
        public enum Status: String, Sendable {
            case ok
            case mismatch
            case notEnoughTraffic = "not_enough_traffic"
        }

        public var pValue: Double
        public var status: Status
        /// Variations with fewer than ``ExperimentReport/minimumUsers`` users.
        public var smallVariations: [String]
    }

    /// One variation's row of a metric.
    public struct Row: Sendable {
        public var variation: String
        public var users: Int
        public var conversions: Int
        /// conversions / users; 0 without users.
        public var rate: Double
        /// Against the control; nil for the control itself.
        public var absolute: Result<TwoSidedTTest.Estimate, TwoSidedTTest.Unavailable>?
        public var relative: Result<TwoSidedTTest.Estimate, TwoSidedTTest.Unavailable>?
    }

    /// A metric's (or guardrail's) results.
    public struct MetricResult: Sendable {
        public var metric: ExperimentMetric
        public var rows: [Row]
        /// Users whose window has not closed at `now` (counted, like GrowthBook, with what they did so far).
        public var openWindows: Int
        /// Events whose `where` failed to evaluate (not counted), and the first failure.
        public var conditionErrors: Int
        public var firstConditionError: String?
    }

    public var experiment: String
    public var now: Double
    public var variations: [VariationUsers]
    /// Every user with an exposure, those left out included.
    public var exposedUsers: Int
    public var multipleExposures: Int
    public var multipleExposureShare: Double
    /// Users who saw only a variation the experiment no longer lists (left out).
    public var otherVariationUsers: Int
    public var sampleRatio: SampleRatio
    /// The goal metrics, then the guardrails.
    public var metrics: [MetricResult]

    /// The report of `experiment` from `store` as of `now`; `evaluator` (over the rule set that
    /// defines the experiment) evaluates the metrics' `where` conditions.
    public init(experiment: Experiment, store: any StoreReader, evaluator: RuleEvaluator, now: Double) throws {
        self.experiment = experiment.key
        self.now = now
        let exposed = ExposedUsers(
            try store.exposures(experiment: experiment.key), variations: experiment.variations, now: now)
        let weights = experiment.effectiveWeights
        variations = experiment.variations.enumerated().map { index, name in
            VariationUsers(variation: name, weight: weights[index], users: exposed.byVariation[name]?.count ?? 0)
        }
        exposedUsers = exposed.total
        multipleExposures = exposed.multiple.count
        multipleExposureShare = exposed.multipleShare
        otherVariationUsers = exposed.otherVariation.count
        let counts = variations.map(\.users)
        sampleRatio = SampleRatio(
            pValue: SampleRatioMismatch.pValue(users: counts, weights: weights),
            status: .ok,
            smallVariations: variations.filter { $0.users < Self.minimumUsers }.map(\.variation))
        if !sampleRatio.smallVariations.isEmpty {
            sampleRatio.status = .notEnoughTraffic
        } else if sampleRatio.pValue < Self.mismatchThreshold {
            sampleRatio.status = .mismatch
        }
        var firstExposure: [String: Double] = [:]
        for users in exposed.byVariation.values { firstExposure.merge(users) { first, _ in first } }
        metrics = try (experiment.metrics + experiment.guardrails).map { metric in
            try Self.result(
                of: metric, experiment: experiment, exposed: exposed, firstExposure: firstExposure, store: store,
                evaluator: evaluator, now: now)
        }
    }

    private static func result(
        of metric: ExperimentMetric, experiment: Experiment, exposed: ExposedUsers, firstExposure: [String: Double],
        store: any StoreReader, evaluator: RuleEvaluator, now: Double
    ) throws -> MetricResult {
        var converted = Set<String>()
        var errors = 0
        var firstError: String?
        if let earliest = firstExposure.values.min() {
            let events = try store.metricEvents(
                type: metric.event, users: Set(firstExposure.keys), from: earliest, to: now
            ).sorted { $0.occurredAt < $1.occurredAt }
            for event in events where !converted.contains(event.userID) {
                guard let start = firstExposure[event.userID], event.occurredAt >= start,
                    event.occurredAt <= start + metric.window
                else { continue }
                guard let rule = metric.conditionRuleID else {
                    converted.insert(event.userID)
                    continue
                }
                do {
                    let input = try event.conditionInput()
                    let result = try evaluator.evaluate(rule, input: JV(input), options: .init(now: event.occurredAt))
                    if let value = result.value, value != .null, value != .bool(false) {
                        converted.insert(event.userID)
                    }
                } catch {
                    errors += 1
                    if firstError == nil {
                        firstError =
                            "\(event.source.rawValue) event of \(event.userID) at \(Timestamp.format(event.occurredAt)): \(error)"
                    }
                }
            }
        }
        let statistics = experiment.variations.map { name in
            let users = exposed.byVariation[name] ?? [:]
            return ProportionStatistic(n: users.count, conversions: users.keys.filter(converted.contains).count)
        }
        let rows = experiment.variations.enumerated().map { index, name in
            let statistic = statistics[index]
            var row = Row(
                variation: name, users: statistic.n, conversions: statistic.conversions, rate: statistic.mean)
            if index > 0 {
                row.absolute =
                    TwoSidedTTest(control: statistics[0], treatment: statistic, difference: .absolute).result()
                row.relative =
                    TwoSidedTTest(control: statistics[0], treatment: statistic, difference: .relative).result()
            }
            return row
        }
        let open = firstExposure.values.filter { $0 + metric.window > now }.count
        return MetricResult(
            metric: metric, rows: rows, openWindows: open, conditionErrors: errors, firstConditionError: firstError)
    }
}
