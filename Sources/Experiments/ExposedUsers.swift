/// An experiment's users by what they were exposed to up to a moment: those who saw exactly one
/// of its variations (with the time they first saw it), and those who saw more than one (after
/// a reassignment, or through two dogs), who are left out of the analysis as GrowthBook does.
public struct ExposedUsers: Sendable {
    /// Per variation (in the experiment's order), each user's first exposure (seconds since 1970).
    public var byVariation: [String: [String: Double]]
    /// Users who saw more than one variation.
    public var multiple: Set<String>
    /// Users who saw only a variation the experiment no longer has.
    public var otherVariation: Set<String>

    /// Every user with an exposure.
    public var total: Int {
        byVariation.values.reduce(0) { $0 + $1.count } + multiple.count + otherVariation.count
    }

    /// The share of exposed users who saw more than one variation (0 with none exposed).
    public var multipleShare: Double { total == 0 ? 0 : Double(multiple.count) / Double(total) }

    /// Groups `exposures` at or before `now` by user.
    public init(_ exposures: [Exposure], variations: [String], now: Double) {
        var seen: [String: (variations: Set<String>, first: Double)] = [:]
        for exposure in exposures where exposure.at <= now {
            var user = seen[exposure.userID] ?? ([], exposure.at)
            user.variations.insert(exposure.variation)
            user.first = min(user.first, exposure.at)
            seen[exposure.userID] = user
        }
        var byVariation: [String: [String: Double]] = [:]
        for variation in variations { byVariation[variation] = [:] }
        var multiple = Set<String>()
        var other = Set<String>()
        for (user, exposure) in seen {
            if exposure.variations.count > 1 {
                multiple.insert(user)
            } else if let variation = exposure.variations.first, byVariation[variation] != nil {
                byVariation[variation]![user] = exposure.first
            } else {
                other.insert(user)
            }
        }
        self.byVariation = byVariation
        self.multiple = multiple
        otherVariation = other
    }
}
