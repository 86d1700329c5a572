/// ISO 8601 timestamps with an offset (`2026-11-29T18:20:00+01:00`, `…Z`, fractions allowed),
/// as seconds since 1970-01-01T00:00:00Z. Exact, and independent of the machine's time zone.
public enum Timestamp {
    /// Seconds since 1970 for `text`; nil unless it is a full date-time with `Z` or `±HH:MM`.
    public static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8(parse(utf8:))
    }

    /// The same for UTF-8 bytes, read in place (every event's time is read this way, so it
    /// neither copies nor allocates).
    public static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Double? {
        func number(_ from: Int, _ count: Int) -> Int? { digits(b, from, count) }
        func at(_ i: Int, _ c: Unicode.Scalar) -> Bool { i < b.count && b[i] == UInt8(ascii: c) }
        guard let days = days(ofDate: b), at(10, "T") || at(10, "t") || at(10, " "),
            let hour = number(11, 2), at(13, ":"), let minute = number(14, 2), at(16, ":"),
            let second = number(17, 2), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if at(i, ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                fraction += Double(b[i] &- 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if at(i, "Z") || at(i, "z") {
            i += 1
        } else if at(i, "+") || at(i, "-") {
            let sign = at(i, "-") ? -1 : 1
            guard let hours = number(i + 1, 2), at(i + 3, ":"), let minutes = number(i + 4, 2),
                hours < 24, minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(seconds) + fraction
    }

    /// Days since 1970 of the real date `YYYY-MM-DD` that `bytes` begin with; nil otherwise.
    public static func days(ofDate bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 10, let year = digits(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = digits(bytes, 5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = digits(bytes, 8, 2), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// The number written by the `count` ASCII digits of `bytes` at `from`; nil if any is
    /// missing or not a digit.
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ count: Int) -> Int? {
        guard from + count <= bytes.count else { return nil }
        var value = 0
        for i in from..<(from + count) {
            let c = bytes[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            value = value * 10 + Int(c &- 0x30)
        }
        return value
    }

    /// `2026-11-29T18:20:00Z` (with milliseconds when there are any).
    public static func format(_ seconds: Double) -> String {
        let time = CivilTime(seconds)
        guard (0...9999).contains(time.year) else { return formatPadded(time) }
        // Written digit by digit: reminders, records and every view format times.
        return String(unsafeUninitializedCapacity: 24) { text in
            var count = 0
            func put(_ n: Int, width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    text[count] = UInt8(ascii: "0") + UInt8(n / divisor % 10)
                    count += 1
                    divisor /= 10
                }
            }
            func put(_ character: Unicode.Scalar) {
                text[count] = UInt8(ascii: character)
                count += 1
            }
            put(time.year, width: 4)
            put("-")
            put(time.month, width: 2)
            put("-")
            put(time.day, width: 2)
            put("T")
            put(time.secondOfDay / 3600, width: 2)
            put(":")
            put(time.secondOfDay / 60 % 60, width: 2)
            put(":")
            put(time.secondOfDay % 60, width: 2)
            if time.milliseconds > 0 {
                put(".")
                put(time.milliseconds, width: 3)
            }
            put("Z")
            return count
        }
    }

    /// The same text built from padded numbers, for any year (one before 0 keeps its sign, one
    /// past 9999 its digits).
    static func formatPadded(_ time: CivilTime) -> String {
        func pad(_ n: Int, _ width: Int = 2) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let rest = time.secondOfDay
        var text =
            "\(pad(time.year, 4))-\(pad(time.month))-\(pad(time.day))T\(pad(rest / 3600)):\(pad(rest / 60 % 60)):\(pad(rest % 60))"
        if time.milliseconds > 0 { text += "." + pad(time.milliseconds, 3) }
        return text + "Z"
    }

    /// A time in UTC as its calendar parts, rounded to the millisecond first, so that .9996 s
    /// carries into the next second.
    struct CivilTime {
        var year: Int, month: Int, day: Int
        var secondOfDay: Int
        var milliseconds: Int

        init(_ seconds: Double) {
            let totalMilliseconds = Int((seconds * 1000).rounded())
            let whole = Int((Double(totalMilliseconds) / 1000).rounded(.down))
            milliseconds = totalMilliseconds - whole * 1000
            var days = whole / 86_400
            var rest = whole % 86_400
            if rest < 0 {
                rest += 86_400
                days -= 1
            }
            secondOfDay = rest
            (year, month, day) = civil(fromDays: days)
        }
    }

    /// Days in `month` of `year` (Gregorian).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month and day of `days` since 1970-01-01 (the inverse of ``daysFromCivil``).
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
