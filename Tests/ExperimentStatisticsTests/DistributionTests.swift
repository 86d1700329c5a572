import Core
import Foundation
import TestSupport
import Testing

@testable import ExperimentStatistics

/// Agreement within `tolerance`, relative to the expected value (absolute near 0). The default,
/// 1e-10, is what the functions promise up to 10⁷ degrees of freedom (most agree to 1e-14).
func close(_ actual: Double, _ expected: Double, tolerance: Double = 1e-10) -> Bool {
    abs(actual - expected) <= tolerance * abs(expected) + 1e-300
}

/// The Student t and chi-square distributions and the incomplete beta function against scipy
/// (Cases/distributions.yaml) and against closed forms.
struct DistributionTests {
    static let cases = try! CaseFile("distributions.yaml")

    @Test(
        arguments: try cases.list("student_t", keys: CaseKeys(expecting: ["cdf", "upper_tail"], others: ["dof", "t"])))
    func studentT(_ row: JSON) {
        let t = StudentT(degreesOfFreedom: row["dof"]!.numberValue!)
        let x = row["t"]!.numberValue!
        #expect(close(t.cdf(x), row["cdf"]!.numberValue!), "cdf(\(x)) = \(t.cdf(x))")
        #expect(close(t.upperTail(x), row["upper_tail"]!.numberValue!), "upper tail \(t.upperTail(x))")
    }

    @Test(
        arguments: try cases.list("student_t_quantile", keys: CaseKeys(expecting: ["quantile"], others: ["dof", "p"])))
    func studentTQuantile(_ row: JSON) {
        let t = StudentT(degreesOfFreedom: row["dof"]!.numberValue!)
        let p = row["p"]!.numberValue!
        #expect(close(t.quantile(p), row["quantile"]!.numberValue!), "quantile(\(p)) = \(t.quantile(p))")
    }

    @Test(
        arguments: try cases.list("chi_square", keys: CaseKeys(expecting: ["survival", "cdf"], others: ["dof", "x"])))
    func chiSquare(_ row: JSON) {
        let chi = ChiSquare(degreesOfFreedom: row["dof"]!.numberValue!)
        let x = row["x"]!.numberValue!
        #expect(close(chi.survival(x), row["survival"]!.numberValue!), "survival(\(x)) = \(chi.survival(x))")
        #expect(close(chi.cdf(x), row["cdf"]!.numberValue!), "cdf(\(x)) = \(chi.cdf(x))")
    }

    @Test(arguments: try cases.list("incomplete_beta", keys: CaseKeys(expecting: ["value"], others: ["a", "b", "x"])))
    func incompleteBeta(_ row: JSON) {
        let (a, b, x) = (row["a"]!.numberValue!, row["b"]!.numberValue!, row["x"]!.numberValue!)
        let value = IncompleteBeta.regularized(a: a, b: b, x: x)
        #expect(close(value, row["value"]!.numberValue!), "I_\(x)(\(a), \(b)) = \(value)")
    }

    /// ν = 1 is the Cauchy distribution, ν = 2 has a closed form too.
    @Test(arguments: [-50.0, -3, -0.25, 0, 0.1, 1, 2.5, 12, 1e4])
    func closedForms(_ x: Double) {
        // Both written so that no digits cancel: atan2(1, −x)/π, and ν = 2's lower tail as a quotient.
        #expect(close(StudentT(degreesOfFreedom: 1).cdf(x), atan2(1, -x) / Double.pi, tolerance: 1e-14))
        let root = (2 + x * x).squareRoot()
        let lowerTail = 1 / ((root + abs(x)) * root)
        #expect(close(StudentT(degreesOfFreedom: 2).cdf(x), x < 0 ? lowerTail : 1 - lowerTail, tolerance: 1e-14))
        let square = x * x
        #expect(close(ChiSquare(degreesOfFreedom: 2).survival(square), exp(-square / 2), tolerance: 1e-13))
        #expect(
            close(ChiSquare(degreesOfFreedom: 1).survival(square), erfc(abs(x) / 2.0.squareRoot()), tolerance: 1e-13))
    }

    /// The quantile undoes the distribution function, over ν from 0.5 to 10⁷.
    @Test(arguments: [0.5, 1, 1.7, 4, 33.3, 512, 8765.4, 1e7])
    func quantileInvertsTheDistribution(_ nu: Double) {
        let t = StudentT(degreesOfFreedom: nu)
        for p in [1e-12, 1e-4, 0.01, 0.2, 0.49, 0.51, 0.8, 0.975, 0.9999] {
            let q = t.quantile(p)
            #expect(close(t.cdf(q), p), "ν \(nu), p \(p): cdf(\(q)) = \(t.cdf(q))")
        }
    }

    /// Small tails keep their digits: computed directly, not as 1 − cdf.
    @Test func smallTailsAreRelativelyAccurate() {
        // P(T > 40) with ν = 10 (scipy's t.sf: 1.1404288715428768e-12).
        #expect(close(StudentT(degreesOfFreedom: 10).upperTail(40), 1.1404288715428768e-12, tolerance: 1e-11))
        #expect(StudentT(degreesOfFreedom: 10).twoSidedPValue(-40) == 2 * StudentT(degreesOfFreedom: 10).upperTail(40))
        #expect(
            close(
                ChiSquare(degreesOfFreedom: 1).survival(150), erfc(150.0.squareRoot() / 2.0.squareRoot()),
                tolerance: 1e-12))
    }
}
