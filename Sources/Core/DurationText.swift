/// Durations as written in rule files and flags: `250ms`, `30s`, `5m`, `2h`, `7d` (and sums
/// such as `1h30m`).
public enum DurationText {
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400),
    ]

    /// Parses `text`; nil when it is not a duration of that form.
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingCharacters(in: " "))
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !digits.isEmpty, let value = Double(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let suffix = rest.prefix { $0.isASCII && $0.isLetter }
            guard let unit = units.first(where: { $0.suffix == suffix }) else { return nil }
            rest = rest.dropFirst(suffix.count)
            total += value * unit.seconds
        }
        guard total.isFinite, total < 1e12 else { return nil }
        return .milliseconds(Int64((total * 1000).rounded()))
    }

    /// The shortest exact text: `250ms`, `5s`, `1m30s`, `7d`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return "0s" }
        var parts: [String] = []
        for (suffix, unitSeconds) in units.reversed() {
            let unit = Int64(unitSeconds * 1000)
            if milliseconds >= unit {
                parts.append("\(milliseconds / unit)\(suffix)")
                milliseconds %= unit
            }
        }
        return parts.joined()
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
