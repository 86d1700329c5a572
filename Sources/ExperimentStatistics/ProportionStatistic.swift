/// A binomial metric in one variation: how many units were counted and how many of them
/// converted (gbstats' `ProportionStatistic`).
public struct ProportionStatistic: Sendable, Equatable {
    /// Units (users) in the variation.
    public var n: Int
    /// Units that converted, 0…n.
    public var conversions: Int

    public init(n: Int, conversions: Int) {
        precondition(
            n >= 0 && conversions >= 0 && conversions <= n,
            "conversions must be 0…n (n \(n), conversions \(conversions))")
        self.n = n
        self.conversions = conversions
    }

    /// conversions / n; 0 when there are no units.
    public var mean: Double { n == 0 ? 0 : Double(conversions) / Double(n) }

    /// mean · (1 − mean), the variance of one unit's 0/1 outcome.
    public var variance: Double { mean * (1 - mean) }
}
