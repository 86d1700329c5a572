import Core

/// A tracker's live check-ins as bits, one row a year (`habit_checkin_years`): word `k` holds
/// days `61k…61k+60` of the year (day 0 is 1 January), so a year is six words, each below
/// 2^61 and never negative in either store. Kept with every check and uncheck, in its
/// transaction; the statistics read a user's days from a row a tracker and year instead of a
/// row a check-in.
enum CheckinYears {
    static let bitsPerWord = 61
    static let wordCount = 6

    /// The year of `date`, and the word and bit that hold it.
    static func position(of date: CivilDate) -> (year: Int, word: Int, bit: Int) {
        let year = Timestamp.civil(fromDays: date.day).year
        let dayOfYear = date.day - Timestamp.daysFromCivil(year: year, month: 1, day: 1)
        return (year, dayOfYear / bitsPerWord, dayOfYear % bitsPerWord)
    }

    /// Appends the days (since 1970) that the words `word(0)`…`word(5)` of `year` hold, ascending.
    static func appendDays(year: Int, word: (Int) -> Int64, to days: inout [Int]) {
        let start = Timestamp.daysFromCivil(year: year, month: 1, day: 1)
        for index in 0..<wordCount {
            var bits = UInt64(bitPattern: word(index))
            while bits != 0 {
                days.append(start + index * bitsPerWord + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }

    /// The columns of the six words, in order.
    static let columns = (0..<wordCount).map { "w\($0)" }.joined(separator: ", ")

    /// Sets a day's bit (the parameters: user, tracker, year, the bit as a number).
    static let setBit = (0..<wordCount).map { word in
        """
        INSERT INTO habit_checkin_years (user_id, tracker_id, year, w\(word)) VALUES (?, ?, ?, ?)
        ON CONFLICT (user_id, tracker_id, year) DO UPDATE SET w\(word) = habit_checkin_years.w\(word) | excluded.w\(word)
        """
    }

    /// Clears a day's bit (the parameters: every bit but the day's, user, tracker, year).
    static let clearBit = (0..<wordCount).map { word in
        "UPDATE habit_checkin_years SET w\(word) = w\(word) & ? WHERE user_id = ? AND tracker_id = ? AND year = ?"
    }
}
