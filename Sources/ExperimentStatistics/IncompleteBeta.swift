import Foundation

/// The regularized incomplete beta function Iₓ(a, b), by its continued fraction (modified
/// Lentz), with the symmetry Iₓ(a, b) = 1 − I₁₋ₓ(b, a) where the fraction converges slowly.
enum IncompleteBeta {
    /// Iₓ(a, b) for a, b > 0 and 0 ≤ x ≤ 1. `y` is 1 − x, and `logX`, `logY` their logarithms:
    /// a caller who knows them more exactly than they can be formed from x passes them (with a
    /// large, ln x must be exact to the last digit, which ln of a rounded x near 1 is not).
    static func regularized(
        a: Double, b: Double, x: Double, y: Double? = nil, logX: Double? = nil, logY: Double? = nil
    ) -> Double {
        precondition(a > 0 && b > 0, "the incomplete beta function needs a > 0 and b > 0 (a = \(a), b = \(b))")
        let y = y ?? (1 - x)
        if x <= 0 { return 0 }
        if y <= 0 { return 1 }
        let logX = logX ?? log(x)
        let logY = logY ?? log(y)
        if x > (a + 1) / (a + b + 2) {
            return 1 - fraction(a: b, b: a, x: y, logX: logY, logY: logX)
        }
        return fraction(a: a, b: b, x: x, logX: logX, logY: logY)
    }

    /// Iₓ(a, b) from its continued fraction alone, whatever the side: xᵃ·yᵇ / (a·B(a, b)) times
    /// the fraction, with ln x and ln y given. It converges fast for x < (a + 1)/(a + b + 2); with
    /// a large and x near 1 its partial denominators nearly cancel and it keeps about
    /// 16 − log₁₀(a) digits, which is why callers may choose the side themselves.
    static func fraction(a: Double, b: Double, x: Double, logX: Double, logY: Double) -> Double {
        let front = exp(a * logX + b * logY - LogGamma.logBeta(a, b)) / a
        let tiny = 1e-300
        let epsilon = 3e-16
        let sum = a + b
        var c = 1.0
        var d = 1 - sum * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var h = d
        // Enough for any a and b met here: the fraction needs about √max(a, b) terms.
        let limit = 1000 + Int(10 * sqrt(max(a, b)))
        for m in 1...limit {
            let m = Double(m)
            let even = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m))
            d = 1 + even * d
            if abs(d) < tiny { d = tiny }
            c = 1 + even / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            h *= d * c
            let odd = -(a + m) * (sum + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))
            d = 1 + odd * d
            if abs(d) < tiny { d = tiny }
            c = 1 + odd / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            h *= step
            if abs(step - 1) < epsilon { break }
        }
        return front * h
    }
}
