/// The middle of `values` once sorted (the upper one of an even count); 0 for none. Every
/// benchmark reports medians of its rounds.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}
