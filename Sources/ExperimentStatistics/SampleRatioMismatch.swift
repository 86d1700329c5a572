/// The sample-ratio-mismatch check: a chi-square test of the users each variation got against
/// the configured weights (gbstats' `check_srm`).
public enum SampleRatioMismatch {
    /// The p-value of the observed `users` per variation under `weights` (any positive scale).
    /// Variations with a weight of 0 add nothing to the statistic but still count toward the
    /// degrees of freedom (variations − 1), as in gbstats; no users at all gives 1.
    public static func pValue(users: [Int], weights: [Double]) -> Double {
        precondition(
            users.count == weights.count,
            "one weight per variation (\(users.count) variations, \(weights.count) weights)")
        let total = Double(users.reduce(0, +))
        guard total > 0, users.count > 1 else { return 1 }
        let totalWeight = weights.reduce(0, +)
        var statistic = 0.0
        for (observed, weight) in zip(users, weights) where weight > 0 {
            let expected = weight / totalWeight * total
            statistic += (Double(observed) - expected) * (Double(observed) - expected) / expected
        }
        return ChiSquare(degreesOfFreedom: Double(users.count - 1)).survival(statistic)
    }
}
