import CICU
import Synchronization

/// A CLDR plural category, as ICU's plural rules name them.
public enum PluralCategory: String, Sendable, CaseIterable, Comparable {
    case zero, one, two, few, many, other

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One locale's CLDR rules, from ICU: which plural category a number takes, how numbers,
/// dates and weekday names are written. `LocaleRules.for("ru")` is made once per locale and
/// shared; every method may be called from any thread.
public final class LocaleRules: Sendable {
    /// The locale's code (`ru`, `en`, `de`).
    public let code: String
    /// The plural categories the locale's numbers take (`ru`: one, few, many, other).
    public let pluralCategories: [PluralCategory]
    private let icu: Mutex<ICUHandles>

    /// The rules of `code` (made the first time, then shared); nil when ICU has no plural
    /// rules or number format for it.
    public static func `for`(_ code: String) -> LocaleRules? {
        cache.withLock { cache in
            if let rules = cache[code] { return rules }
            let rules = LocaleRules(code: code)
            cache[code] = rules
            return rules
        }
    }

    private static let cache = Mutex<[String: LocaleRules?]>([:])

    private init?(code: String) {
        guard !code.isEmpty, code.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        guard let handles = ICUHandles(locale: code) else { return nil }
        self.code = code
        self.pluralCategories = handles.keywords()
        self.icu = Mutex(handles)
    }

    /// The plural category of `number` as written by ``format(_:fractionDigits:)`` (so that
    /// 1.5 is `other` in Russian and 21 is `one`).
    public func pluralCategory(_ number: Double, fractionDigits: Int? = nil) -> PluralCategory {
        icu.withLock { $0.select(number, fractionDigits: fractionDigits) }
    }

    /// `number` in the locale's digits and grouping: 8500 → "8 500" (`ru`, a no-break space),
    /// "8,500" (`en`); up to `fractionDigits` fraction digits (3 when nil, trailing zeros dropped).
    public func format(_ number: Double, fractionDigits: Int? = nil) -> String {
        icu.withLock { $0.format(number, fractionDigits: fractionDigits) }
    }

    /// The weekday's stand-alone name: `weekday` 1 is Monday … 7 Sunday (ISO); `wide`
    /// "понедельник", else short "пн".
    public func weekdayName(_ weekday: Int, wide: Bool = true) -> String {
        icu.withLock { $0.weekday(weekday, wide: wide) }
    }

    /// The instant `seconds` (since 1970) in `timeZone` (an IANA name; UTC when nil or unknown),
    /// written with the locale's best pattern for the ICU `skeleton` (`dMMMM` → "5 декабря",
    /// "December 5"; `yMMMd`, `EEEE`, `Hm`).
    public func formatDate(_ seconds: Double, skeleton: String, timeZone: String? = nil) -> String {
        guard let format = DateFormat(locale: code, skeleton: skeleton, timeZone: timeZone ?? "UTC") else {
            return ""
        }
        return format.format(seconds)
    }
}

/// The ICU objects of one locale (used under the lock of their ``LocaleRules``).
private final class ICUHandles {
    let plural: UnsafeMutableRawPointer
    let number: UnsafeMutableRawPointer
    let weekdays: UnsafeMutableRawPointer
    var fixedDigits: [Int: UnsafeMutableRawPointer] = [:]
    let locale: String

    init?(locale: String) {
        var status = Int32(0)
        guard let plural = journey_uplrules_open(locale, &status), journey_u_failure(status) == 0 else { return nil }
        guard let number = journey_unum_open_decimal(locale, &status), journey_u_failure(status) == 0 else {
            journey_uplrules_close(plural)
            return nil
        }
        journey_unum_set_fraction_digits(number, 0, 3)
        guard let weekdays = DateFormat.open(locale: locale, skeleton: "EEEE", timeZone: "UTC") else {
            journey_uplrules_close(plural)
            journey_unum_close(number)
            return nil
        }
        self.locale = locale
        self.plural = plural
        self.number = number
        self.weekdays = weekdays
    }

    deinit {
        journey_uplrules_close(plural)
        journey_unum_close(number)
        journey_udat_close(weekdays)
        for format in fixedDigits.values { journey_unum_close(format) }
    }

    func numberFormat(_ fractionDigits: Int?) -> UnsafeMutableRawPointer {
        guard let digits = fractionDigits.map({ max(0, min($0, 10)) }) else { return number }
        if let format = fixedDigits[digits] { return format }
        var status = Int32(0)
        guard let format = journey_unum_open_decimal(locale, &status), journey_u_failure(status) == 0 else {
            return number
        }
        journey_unum_set_fraction_digits(format, Int32(digits), Int32(digits))
        fixedDigits[digits] = format
        return format
    }

    func keywords() -> [PluralCategory] {
        var status = Int32(0)
        guard let list = journey_uplrules_keywords(plural, &status) else { return [.other] }
        defer { journey_uenum_close(list) }
        var found: [PluralCategory] = []
        var length: Int32 = 0
        while let name = journey_uenum_next(list, &length, &status), journey_u_failure(status) == 0 {
            if let category = PluralCategory(rawValue: String(cString: name)) { found.append(category) }
        }
        return found.sorted()
    }

    func select(_ number: Double, fractionDigits: Int?) -> PluralCategory {
        var status = Int32(0)
        let keyword = ICUString.read { buffer, capacity in
            journey_uplrules_select_formatted(plural, numberFormat(fractionDigits), number, buffer, capacity, &status)
        }
        return PluralCategory(rawValue: keyword) ?? .other
    }

    func format(_ value: Double, fractionDigits: Int?) -> String {
        var status = Int32(0)
        let format = numberFormat(fractionDigits)
        return ICUString.read { buffer, capacity in
            journey_unum_format_double(format, value, buffer, capacity, &status)
        }
    }

    func weekday(_ weekday: Int, wide: Bool) -> String {
        // ICU counts 1 Sunday … 7 Saturday.
        let index = Int32(weekday % 7 + 1)
        var status = Int32(0)
        return ICUString.read { buffer, capacity in
            journey_udat_weekday(weekdays, index, wide ? 1 : 0, buffer, capacity, &status)
        }
    }
}

/// A date format made for one call (date formats are made rarely: a view formats few dates).
private struct DateFormat: ~Copyable {
    let handle: UnsafeMutableRawPointer

    init?(locale: String, skeleton: String, timeZone: String) {
        guard let handle = Self.open(locale: locale, skeleton: skeleton, timeZone: timeZone) else { return nil }
        self.handle = handle
    }

    deinit { journey_udat_close(handle) }

    static func open(locale: String, skeleton: String, timeZone: String) -> UnsafeMutableRawPointer? {
        var status = Int32(0)
        let skeleton = Array(skeleton.utf16)
        let zone = Array(timeZone.utf16)
        let handle = journey_udat_open_skeleton(
            locale, skeleton, Int32(skeleton.count), zone, Int32(zone.count), &status)
        guard journey_u_failure(status) == 0 else {
            if let handle { journey_udat_close(handle) }
            return nil
        }
        return handle
    }

    func format(_ seconds: Double) -> String {
        var status = Int32(0)
        return ICUString.read { buffer, capacity in
            journey_udat_format(handle, seconds * 1000, buffer, capacity, &status)
        }
    }
}

/// Reads a UTF-16 string an ICU function writes into a buffer.
enum ICUString {
    static func read(_ write: (UnsafeMutablePointer<UInt16>, Int32) -> Int32) -> String {
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 256) { buffer in
            let length = write(buffer.baseAddress!, 256)
            guard length > 0 else { return "" }
            return String(
                decoding: UnsafeBufferPointer(start: buffer.baseAddress, count: Int(min(length, 256))), as: UTF16.self)
        }
    }
}
