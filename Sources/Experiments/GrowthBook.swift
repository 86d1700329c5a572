/// GrowthBook's assignment algorithm, exactly as its SDKs compute it, so that an id gets the
/// same bucket here as in any GrowthBook client.
///
/// Strings are hashed as JavaScript sees them: FNV-1a (32-bit) over UTF-16 code units, each
/// unit XORed in whole (for ASCII this is ordinary FNV-1a over the bytes).
public enum GrowthBook {
    /// 32-bit FNV-1a over the UTF-16 code units of `text`.
    public static func fnv32a(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for unit in text.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 16_777_619
        }
        return hash
    }

    /// The hash of `value` for an experiment seeded with `seed`, in [0, 1): version 1 is
    /// `(fnv32a(value + seed) % 1000) / 1000`, version 2 is
    /// `(fnv32a(String(fnv32a(seed + value))) % 10000) / 10000`. Nil for another version.
    public static func hash(seed: String, value: String, version: Int) -> Double? {
        switch version {
        case 1: Double(fnv32a(value + seed) % 1000) / 1000
        case 2: Double(fnv32a(String(fnv32a(seed + value))) % 10000) / 10000
        default: nil
        }
    }

    /// A variation's share of the hash space: `[start, end)`.
    public struct BucketRange: Sendable, Equatable {
        public var start: Double
        public var end: Double

        public init(_ start: Double, _ end: Double) {
            self.start = start
            self.end = end
        }

        public func contains(_ n: Double) -> Bool { n >= start && n < end }
    }

    /// The ranges of `count` variations: coverage clamped to [0, 1]; `weights` used when there is
    /// one per variation and they sum to 1 (±0.01), equal weights otherwise; variation `i`
    /// covers `[Σw<i, Σw<i + coverage × wᵢ)`.
    public static func bucketRanges(count: Int, coverage: Double = 1, weights: [Double]? = nil) -> [BucketRange] {
        guard count > 0 else { return [] }
        let coverage = coverage.isNaN ? 0 : min(max(coverage, 0), 1)
        let equal = Array(repeating: 1 / Double(count), count: count)
        var weights = weights ?? equal
        if weights.count != count { weights = equal }
        if !weightsSumToOne(weights) { weights = equal }
        var cumulative = 0.0
        return weights.map { weight in
            let start = cumulative
            cumulative += weight
            return BucketRange(start, start + coverage * weight)
        }
    }

    /// Whether `weights` sum to 1 within GrowthBook's tolerance (0.99…1.01): outside it,
    /// ``bucketRanges(count:coverage:weights:)`` uses equal weights.
    public static func weightsSumToOne(_ weights: [Double]) -> Bool {
        let total = weights.reduce(0, +)
        return total >= 0.99 && total <= 1.01
    }

    /// The index of the range holding `n` (half-open), or nil when none does.
    public static func chooseVariation(_ n: Double, ranges: [BucketRange]) -> Int? {
        ranges.firstIndex { $0.contains(n) }
    }
}
