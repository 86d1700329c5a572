/// A calendar date without a time zone (`YYYY-MM-DD`), as the user's day: check-ins and
/// schedules live on these, so clock changes (DST) never move them.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let day: Int

    public init(day: Int) { self.day = day }

    /// Nil unless `text` is a real date written `YYYY-MM-DD`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        self.day = Self.days(year: year, month: month, day: day)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day.
    public var components: (year: Int, month: Int, day: Int) {
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public var description: String {
        let (y, m, d) = components
        func pad(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The weekdays as schedules name them, Monday first.
    public static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `mon`…`sun` (1970-01-01 was a Thursday).
    public var weekday: String { Self.weekdays[((day % 7) + 7 + 3) % 7] }

    public func adding(days: Int) -> CivilDate { CivilDate(day: day + days) }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.day < b.day }

    /// The local date of `seconds` (since 1970) in the offset an event's `occurred_at` was
    /// written with (`Z`, `+01:00`, `-08:00`…); UTC when the text has no offset.
    public static func local(_ seconds: Double, offsetOf text: String) -> CivilDate {
        CivilDate(day: Int(((seconds + Double(offsetSeconds(text))) / 86_400).rounded(.down)))
    }

    /// The UTC offset at the end of a timestamp text, in seconds.
    static func offsetSeconds(_ text: String) -> Int {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6 else { return 0 }
        let tail = bytes.suffix(6)
        let start = tail.startIndex
        guard tail[start] == UInt8(ascii: "+") || tail[start] == UInt8(ascii: "-"), tail[start + 3] == UInt8(ascii: ":")
        else { return 0 }
        let digits = [tail[start + 1], tail[start + 2], tail[start + 4], tail[start + 5]].map { Int($0) - 48 }
        guard digits.allSatisfy({ (0...9).contains($0) }) else { return 0 }
        let seconds = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60
        return tail[start] == UInt8(ascii: "-") ? -seconds : seconds
    }
}
