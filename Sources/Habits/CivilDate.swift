import Core
import RuleEngine

/// A calendar date without a time zone (`YYYY-MM-DD`), as the user's day: check-ins and
/// schedules live on these, so clock changes (DST) never move them.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let day: Int

    public init(day: Int) { self.day = day }

    /// Nil unless `text` is a real date written `YYYY-MM-DD`.
    public init?(_ text: String) {
        var text = text
        guard let date = text.withUTF8(CivilDate.init(utf8:)) else { return nil }
        self = date
    }

    /// The same for UTF-8 bytes, read in place (a stored check-in's date column).
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 10, let day = Timestamp.days(ofDate: bytes), day >= Self.firstDayOfYearOne else {
            return nil
        }
        self.day = day
    }

    /// 0001-01-01: no date is earlier.
    private static let firstDayOfYearOne = Timestamp.daysFromCivil(year: 1, month: 1, day: 1)

    /// The UTC date of `seconds` since 1970.
    public init(utc seconds: Double) {
        self.day = Int((seconds / 86_400).rounded(.down))
    }

    /// The date an RFC 3339 timestamp names in the offset it was written with (its first ten
    /// characters): for an event's `occurred_at`, the user's local date
    /// (`2026-11-29T23:30:00-08:00` is the 29th).
    public init?(localDateOf timestamp: String) {
        self.init(String(timestamp.prefix(10)))
    }

    public var description: String {
        let (year, month, day) = Timestamp.civil(fromDays: self.day)
        guard (1...9999).contains(year) else { return String(Timestamp.format(Double(self.day) * 86_400).prefix(10)) }
        // Written digit by digit: the facts write a date per run and per day.
        return String(unsafeUninitializedCapacity: 10) { text in
            let zero = UInt8(ascii: "0")
            text[0] = zero + UInt8(year / 1000)
            text[1] = zero + UInt8(year / 100 % 10)
            text[2] = zero + UInt8(year / 10 % 10)
            text[3] = zero + UInt8(year % 10)
            text[4] = UInt8(ascii: "-")
            text[5] = zero + UInt8(month / 10)
            text[6] = zero + UInt8(month % 10)
            text[7] = UInt8(ascii: "-")
            text[8] = zero + UInt8(day / 10)
            text[9] = zero + UInt8(day % 10)
            return 10
        }
    }

    /// The weekdays as schedules name them, Monday first.
    public static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    public var weekdayIndex: Int { ((day % 7) + 7 + 3) % 7 }

    /// `mon`…`sun`.
    public var weekday: String { Self.weekdays[weekdayIndex] }

    public func adding(days: Int) -> CivilDate { CivilDate(day: day + days) }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.day < b.day }
}
