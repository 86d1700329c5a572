import Foundation

/// Welch's two-sided t-test of a variation against the control, as gbstats' frequentist engine
/// computes it (`TwoSidedTTest` with a `FrequentistConfig`, `test_value` 0): the difference of
/// the means, absolute or relative to the control's (the variance of the relative one by the
/// delta method), Welch–Satterthwaite degrees of freedom, the interval from the Student t
/// quantile and the p-value from its distribution function.
public struct TwoSidedTTest: Sendable {
    /// How the difference is expressed (gbstats' `difference_type`).
    public enum Difference: String, Sendable, CaseIterable {
        /// (treatment − control) / control: gbstats' default.
        case relative
        /// treatment − control.
        case absolute
    }

    /// Why gbstats gives no estimate (it answers 0, [0, 0] and p = 1 with this message).
    public enum Unavailable: String, Error, Sendable {
        /// The control's mean is 0: no relative change can be formed (gbstats refuses the
        /// absolute one too).
        case zeroBaseline = "ZERO_NEGATIVE_BASELINE_VARIATION"
        /// A variation's variance is 0 (every unit converted, or none did, or it has one unit).
        case zeroVariance = "ZERO_NEGATIVE_VARIANCE"

        /// For people.
        public var explanation: String {
            switch self {
            case .zeroBaseline: "the control has no conversions, so there is nothing to compare to"
            case .zeroVariance: "a variation where every user converted or none did (or with one user) has no variance"
            }
        }
    }

    /// What the test found.
    public struct Estimate: Sendable, Equatable {
        /// The difference (a fraction of the control's mean when relative).
        public var estimate: Double
        /// √variance of the estimate.
        public var standardError: Double
        /// Welch–Satterthwaite.
        public var degreesOfFreedom: Double
        /// estimate / standard error.
        public var tStatistic: Double
        /// Two-sided.
        public var pValue: Double
        /// The 1 − α confidence interval.
        public var lower: Double
        public var upper: Double
    }

    public var control: ProportionStatistic
    public var treatment: ProportionStatistic
    public var difference: Difference
    /// 0.05 gives the 95% interval.
    public var alpha: Double

    public init(
        control: ProportionStatistic, treatment: ProportionStatistic, difference: Difference = .relative,
        alpha: Double = 0.05
    ) {
        self.control = control
        self.treatment = treatment
        self.difference = difference
        self.alpha = alpha
    }

    /// The estimate, or why there is none (checked in gbstats' order).
    public func result() -> Result<Estimate, Unavailable> {
        let a = control
        let b = treatment
        if a.mean == 0 { return .failure(.zeroBaseline) }
        if a.variance <= 0 || b.variance <= 0 { return .failure(.zeroVariance) }
        let (na, nb) = (Double(a.n), Double(b.n))
        let estimate: Double
        let variance: Double
        switch difference {
        case .relative:
            estimate = (b.mean - a.mean) / a.mean
            variance = b.variance / (pow(a.mean, 2) * nb) + a.variance * pow(b.mean, 2) / (pow(a.mean, 4) * na)
        case .absolute:
            estimate = b.mean - a.mean
            variance = b.variance / nb + a.variance / na
        }
        let dof =
            pow(b.variance / nb + a.variance / na, 2)
            / (pow(b.variance, 2) / (pow(nb, 2) * (nb - 1)) + pow(a.variance, 2) / (pow(na, 2) * (na - 1)))
        let standardError = variance.squareRoot()
        let t = estimate / standardError
        let distribution = StudentT(degreesOfFreedom: dof)
        let width = distribution.quantile(1 - alpha / 2) * standardError
        return .success(
            Estimate(
                estimate: estimate, standardError: standardError, degreesOfFreedom: dof, tStatistic: t,
                pValue: distribution.twoSidedPValue(t), lower: estimate - width, upper: estimate + width))
    }
}
