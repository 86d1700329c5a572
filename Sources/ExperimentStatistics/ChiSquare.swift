/// The chi-square distribution with k degrees of freedom: its upper tail, from the regularized
/// incomplete gamma function (what scipy's `chi2.sf` gives).
public struct ChiSquare: Sendable {
    /// k > 0.
    public let degreesOfFreedom: Double

    public init(degreesOfFreedom: Double) {
        precondition(
            degreesOfFreedom > 0 && degreesOfFreedom.isFinite,
            "the chi-square distribution needs a finite, positive number of degrees of freedom, got \(degreesOfFreedom)"
        )
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// P(X > x) = Q(k/2, x/2).
    public func survival(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        return IncompleteGamma.upper(a: degreesOfFreedom / 2, x: x / 2)
    }

    /// P(X ≤ x) = P(k/2, x/2).
    public func cdf(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        return IncompleteGamma.lower(a: degreesOfFreedom / 2, x: x / 2)
    }
}
