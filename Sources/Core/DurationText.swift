/// Durations as written in rule files and flags: `250ms`, `30s`, `5m`, `2h`, `7d` (and sums
/// such as `1h30m`).
public enum DurationText {
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400),
    ]

    /// Parses `text`; nil when it is not a duration of that form. Spaces around it are allowed,
    /// none inside. Reads the UTF-8 bytes: every reminder a rule schedules `due_in` is one.
    public static func parse(_ text: String) -> Duration? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Duration? {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == space { start += 1 }
        while end > start, bytes[end - 1] == space { end -= 1 }
        guard start < end else { return nil }
        var total = 0.0
        var index = start
        while index < end {
            let digits = index
            while index < end, isDigit(bytes[index]) || bytes[index] == dot { index += 1 }
            guard index > digits, let value = number(UnsafeBufferPointer(rebasing: bytes[digits..<index])) else {
                return nil
            }
            let suffix = index
            while index < end, isLetter(bytes[index]) { index += 1 }
            guard let seconds = unitSeconds(UnsafeBufferPointer(rebasing: bytes[suffix..<index])) else { return nil }
            total += value * seconds
        }
        guard total.isFinite, total < 1e12 else { return nil }
        return .milliseconds(Int64((total * 1000).rounded()))
    }

    private static let space = UInt8(ascii: " ")
    private static let dot = UInt8(ascii: ".")

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// Digits (and dots) as a number: whole numbers of up to 15 digits directly, the rest as
    /// `Double` reads them (nil for `1.2.3`).
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if bytes.count <= 15, !bytes.contains(dot) {
            return Double(bytes.reduce(0) { $0 * 10 + Int64($1 - 0x30) })
        }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// The seconds of the unit `bytes` names (`ms`, `s`, `m`, `h`, `d`); nil for any other.
    private static func unitSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        units.first { $0.suffix.utf8.elementsEqual(bytes) }?.seconds
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
