import Foundation

/// Local times in a dog's time zone (DST-aware, through Foundation's calendar).
enum LocalTime {
    static func calendar(_ timezone: String?) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timezone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        return calendar
    }

    /// `YYYY-MM-DDTHH:MM` of `seconds` in `timezone`.
    static func text(_ seconds: Double, timezone: String?) -> String {
        let parts = calendar(timezone).dateComponents(
            [.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: seconds))
        func pad(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return "\(parts.year ?? 0)-\(pad(parts.month))-\(pad(parts.day))T\(pad(parts.hour)):\(pad(parts.minute))"
    }

    /// The next `HH:MM` in `timezone` at least 30 minutes after `seconds`, that same day;
    /// when that time has passed (it is evening already), two hours from now.
    static func next(_ hhmm: String, after seconds: Double, timezone: String?) -> Double? {
        let parts = hhmm.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
        let calendar = calendar(timezone)
        var day = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: seconds))
        day.hour = parts[0]
        day.minute = parts[1]
        guard let candidate = calendar.date(from: day)?.timeIntervalSince1970 else { return nil }
        return candidate >= seconds + 30 * 60 ? candidate : seconds + 2 * 3600
    }
}
