import Core

/// What `journey check` says about an experiment's weights: they must sum to 1 within GrowthBook's
/// tolerance, or the split would silently be equal.
enum ExperimentWeights {
    /// Whether GrowthBook uses `weights` as given (they sum to 1 ± 0.01).
    static func sumToOne(_ weights: [Double]) -> Bool {
        GrowthBook.weightsSumToOne(weights)
    }

    /// `weights` scaled to sum to 1, rounded to hundredths (the last one takes the rounding), for
    /// "write … instead"; equal weights when they sum to 0.
    static func normalized(_ weights: [Double]) -> [Double] {
        let total = weights.reduce(0, +)
        guard total > 0, !weights.isEmpty else {
            return weights.isEmpty ? [] : Array(repeating: hundredths(1 / Double(weights.count)), count: weights.count)
        }
        var scaled = weights.dropLast().map { hundredths($0 / total) }
        scaled.append(hundredths(1 - scaled.reduce(0, +)))
        return scaled
    }

    /// `[0.55, 0.45]`
    static func text(_ weights: [Double]) -> String {
        "[" + weights.map { JSON.number($0).compactText }.joined(separator: ", ") + "]"
    }

    /// A sum for people: 1.1, not 1.1000000000000001.
    static func sumText(_ weights: [Double]) -> String {
        JSON.number((weights.reduce(0, +) * 1e6).rounded() / 1e6).compactText
    }

    private static func hundredths(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }
}
