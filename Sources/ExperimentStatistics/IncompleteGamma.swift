import Foundation

/// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 − P(a, x): by the series
/// below x = a + 1, by the continued fraction (modified Lentz) above, each side computing the
/// smaller of the two directly.
enum IncompleteGamma {
    /// Q(a, x) = Γ(a, x)/Γ(a), the upper tail, for a > 0 and x ≥ 0.
    static func upper(a: Double, x: Double) -> Double {
        precondition(a > 0, "the incomplete gamma function needs a > 0 (a = \(a))")
        if x <= 0 { return 1 }
        return x < a + 1 ? 1 - series(a: a, x: x) : fraction(a: a, x: x)
    }

    /// P(a, x) = γ(a, x)/Γ(a), the lower part, for a > 0 and x ≥ 0.
    static func lower(a: Double, x: Double) -> Double {
        precondition(a > 0, "the incomplete gamma function needs a > 0 (a = \(a))")
        if x <= 0 { return 0 }
        return x < a + 1 ? series(a: a, x: x) : 1 - fraction(a: a, x: x)
    }

    /// e⁻ˣ·xᵃ/Γ(a), the factor both forms share.
    private static func front(a: Double, x: Double) -> Double {
        exp(-x + a * log(x) - LogGamma.value(a))
    }

    /// P(a, x) = e⁻ˣ·xᵃ/Γ(a) · Σ xⁿ/(a·(a+1)…(a+n)).
    private static func series(a: Double, x: Double) -> Double {
        var term = 1 / a
        var sum = term
        var denominator = a
        for _ in 0..<100_000 {
            denominator += 1
            term *= x / denominator
            sum += term
            if abs(term) < abs(sum) * 1e-17 { break }
        }
        return sum * front(a: a, x: x)
    }

    /// Q(a, x) by its continued fraction.
    private static func fraction(a: Double, x: Double) -> Double {
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1...100_000 {
            let i = Double(i)
            let an = -i * (i - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            h *= step
            if abs(step - 1) < 3e-16 { break }
        }
        return front(a: a, x: x) * h
    }
}
