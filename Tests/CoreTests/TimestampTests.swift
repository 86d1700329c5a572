import TestSupport
import Testing

@testable import Core

/// ISO 8601 date-times with an offset, read exactly as seconds since 1970.
@Suite struct TimestampTests {
    static let valid: [(String, Double)] = [
        ("2026-11-29T18:20:00Z", 1_795_976_400),
        ("2026-11-29T18:20:00+01:00", 1_795_972_800),
        ("2026-11-29T18:20:00-05:30", 1_795_996_200),
        ("2026-11-29t18:20:00z", 1_795_976_400),
        ("2026-11-29 18:20:00Z", 1_795_976_400),
        ("2026-11-29T18:20:00.5Z", 1_795_976_400.5),
        ("2026-11-29T18:20:00.250+01:00", 1_795_972_800.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2000-02-29T12:00:00Z", 951_825_600),
        ("1969-12-31T23:59:59Z", -1),
        ("2026-12-31T23:59:60Z", 1_798_761_600),
        ("2026-11-29T00:00:00+23:59", 1_795_976_400 - 18 * 3600 - 20 * 60 - 86_340),
    ]

    @Test(arguments: valid)
    func readsADateTimeWithItsOffset(_ text: String, _ seconds: Double) {
        #expect(Timestamp.parse(text) == seconds)
    }

    static let invalid = [
        "", "2026-11-29", "2026-11-29T18:20:00", "2026-11-29T18:20Z", "2026-11-29T18:20:00+0100",
        "2026-11-29T18:20:00+01", "2026-11-29T18:20:00Z ", " 2026-11-29T18:20:00Z", "2026-11-29T18:20:00.Z",
        "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T18:60:00Z",
        "2026-11-29T18:20:61Z", "2026-11-29T18:20:00+24:00", "2026-11-29T18:20:00+01:60",
        "2026/11/29T18:20:00Z", "2026-11-29X18:20:00Z", "２０２６-11-29T18:20:00Z", "2026-1a-29T18:20:00Z",
        "2026-11-29T18:20:00ZZ", "-026-11-29T18:20:00Z", "2026", "2026-1", "2026-11-2",
    ]

    @Test(arguments: invalid)
    func refusesAnythingElse(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test(arguments: ["2026-11-29T18:20:00Z", "2026-11-29T18:20:00.125Z", "1969-12-31T23:59:59Z"])
    func formatsWhatItReads(_ text: String) throws {
        #expect(Timestamp.format(try #require(Timestamp.parse(text))) == text)
    }

    /// Times over the whole range years are written in (and beyond it, on either side): the
    /// digits written one by one give the text padded numbers give (what the engine wrote
    /// before, and still writes for years outside 0–9999).
    @Test(arguments: 0..<8)
    func formatsLikeThePaddedText(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        for _ in 0..<2_000 {
            let range: ClosedRange<Double> = seed == 0 ? -1e11...1e11 : -62_135_596_800...253_402_300_799
            var seconds = Double.random(in: range, using: &random)
            if seed % 2 == 1 { seconds = seconds.rounded() }
            #expect(Timestamp.format(seconds) == Timestamp.formatPadded(.init(seconds)), "\(seconds)")
        }
    }
}
