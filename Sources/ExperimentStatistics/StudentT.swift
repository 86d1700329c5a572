import Foundation

/// Student's t distribution with any positive (not necessarily whole) number of degrees of
/// freedom, as Welch's test needs: distribution function, tails and quantiles from the
/// regularized incomplete beta function. Measured against scipy: relative errors below 1e-10 up to
/// ν = 10⁷ (below 1e-13 for most values; the largest are in far tails at ν ≥ 10⁶).
public struct StudentT: Sendable {
    /// ν > 0.
    public let degreesOfFreedom: Double

    /// The distribution with `degreesOfFreedom` (ν > 0; `.infinity` is the standard normal's limit
    /// and is refused: give a finite ν).
    public init(degreesOfFreedom: Double) {
        precondition(
            degreesOfFreedom > 0 && degreesOfFreedom.isFinite,
            "Student's t needs a finite, positive number of degrees of freedom, got \(degreesOfFreedom)")
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// P(T > t): the upper tail, computed directly (no 1 − cdf), so small tails keep their digits.
    public func upperTail(_ t: Double) -> Double {
        if t.isNaN { return .nan }
        if t < 0 { return 1 - upperTail(-t) }
        if t == .infinity { return 0 }
        let square = t * t
        let nu = degreesOfFreedom
        // P(|T| > t) = I_x(ν/2, 1/2) with x = ν/(ν + t²), 1 − x = y = t²/(ν + t²); ln x = −ln(1 + t²/ν).
        let x = nu / (nu + square)
        let y = square / (nu + square)
        let logX = -log1p(square / nu)
        let logY = t == 0 ? -Double.infinity : log(square / nu) + logX
        let both: Double
        if nu >= 1000, square <= 9 {
            // Large ν, |t| ≤ 3: as 1 − I_y(1/2, ν/2), whose fraction keeps its digits here (the other
            // side's loses log₁₀(ν) of them), the subtraction at most 2.6 (|t| = 3 leaves 0.27%).
            both = 1 - IncompleteBeta.fraction(a: 0.5, b: nu / 2, x: y, logX: logY, logY: logX)
        } else {
            both = IncompleteBeta.regularized(a: nu / 2, b: 0.5, x: x, y: y, logX: logX, logY: logY)
        }
        return both / 2
    }

    /// P(T ≤ t).
    public func cdf(_ t: Double) -> Double {
        t < 0 ? upperTail(-t) : 1 - upperTail(t)
    }

    /// P(|T| ≥ |t|): the two-sided p-value of a t statistic.
    public func twoSidedPValue(_ t: Double) -> Double {
        let tail = upperTail(abs(t))
        return min(1, 2 * tail)
    }

    /// The density at t.
    public func density(_ t: Double) -> Double {
        let nu = degreesOfFreedom
        return exp(-LogGamma.logBeta(nu / 2, 0.5) - 0.5 * log(nu) - (nu + 1) / 2 * log1p(t * t / nu))
    }

    /// The t with P(T ≤ t) = p, for 0 < p < 1.
    public func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a quantile needs 0 < p < 1, got \(p)")
        if p == 0.5 { return 0 }
        // Solve for the upper tail q = P(T > t) with t > 0; the lower half by symmetry.
        let q = p < 0.5 ? p : 1 - p
        let t = positiveQuantile(upperTail: q)
        return p < 0.5 ? -t : t
    }

    /// The t > 0 whose upper tail is q (0 < q < ½): Newton's method on the tail, kept inside a
    /// bracket that bisection narrows whenever a Newton step would leave it.
    private func positiveQuantile(upperTail q: Double) -> Double {
        var low = 0.0
        var high = max(1, initialGuess(upperTail: q))
        while upperTail(high) > q { (low, high) = (high, high * 2) }
        var t = min(max(initialGuess(upperTail: q), low), high)
        for _ in 0..<200 {
            let excess = upperTail(t) - q  // decreasing in t
            if excess == 0 { return t }
            if excess > 0 { low = t } else { high = t }
            var next = t + excess / density(t)
            if !(next > low && next < high) { next = (low + high) / 2 }
            if abs(next - t) <= 1e-15 * abs(next) { return next }
            t = next
        }
        return t
    }

    /// The normal quantile corrected by the Cornish–Fisher expansion for ν (Abramowitz & Stegun
    /// 26.7.5): a start for Newton's method, good to a few digits except at very small ν.
    private func initialGuess(upperTail q: Double) -> Double {
        let z = StandardNormal.quantile(1 - q)
        let nu = degreesOfFreedom
        let z3 = z * z * z
        let z5 = z3 * z * z
        let guess = z + (z3 + z) / (4 * nu) + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu * nu)
        return guess.isFinite && guess > 0 ? guess : z
    }
}

/// The standard normal distribution's quantile, for starting values.
enum StandardNormal {
    /// Φ⁻¹(p) by Acklam's rational approximation (relative error below 1.2e-9), refined by one
    /// Halley step on erfc.
    static func quantile(_ p: Double) -> Double {
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
            -3.066479806614716e+01, 2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
            -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = sqrt(-2 * log(p))
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = sqrt(-2 * log(1 - p))
            x =
                -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let error = 0.5 * erfc(-x / 2.0.squareRoot()) - p
        let u = error * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }
}
