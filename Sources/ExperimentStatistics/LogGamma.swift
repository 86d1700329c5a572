import Foundation

/// Logarithms of the gamma and beta functions, accurate where the special functions need them:
/// `lnB(a, b)` with one large argument is computed from the difference of two Stirling series
/// rather than as a difference of two large `lgamma` values (which would lose digits).
enum LogGamma {
    /// ln Γ(x) for x > 0.
    static func value(_ x: Double) -> Double { lgamma(x) }

    /// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b), for a, b > 0.
    static func logBeta(_ a: Double, _ b: Double) -> Double {
        let small = min(a, b)
        let large = max(a, b)
        guard large >= 10 else { return lgamma(a) + lgamma(b) - lgamma(a + b) }
        guard small >= 10 else { return lgamma(small) - increment(large, by: small) }
        // Both large: Stirling's series for all three, the large terms cancelled by hand.
        return -a * log1p(b / a) - b * log1p(a / b) + 0.5 * log((a + b) / (a * b)) + 0.5 * log(2 * Double.pi)
            + stirlingCorrection(a) + stirlingCorrection(b) - stirlingCorrection(a + b)
    }

    /// ln Γ(z + h) − ln Γ(z) for z ≥ 10 and h > 0, from Stirling's series:
    /// (z − ½)·ln(1 + h/z) + h·ln(z + h) − h + c(z + h) − c(z).
    static func increment(_ z: Double, by h: Double) -> Double {
        (z - 0.5) * log1p(h / z) + h * log(z + h) - h + stirlingCorrection(z + h) - stirlingCorrection(z)
    }

    /// ln Γ(w) − [(w − ½)·ln w − w + ½·ln 2π] for w ≥ 10 (the next term is below 1e-16).
    private static func stirlingCorrection(_ w: Double) -> Double {
        let inverse = 1 / w
        let square = inverse * inverse
        var series = 1.0 / 156
        series = series * square - 691.0 / 360_360
        series = series * square + 1.0 / 1188
        series = series * square - 1.0 / 1680
        series = series * square + 1.0 / 1260
        series = series * square - 1.0 / 360
        series = series * square + 1.0 / 12
        return series * inverse
    }
}
