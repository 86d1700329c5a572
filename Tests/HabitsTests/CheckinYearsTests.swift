import Core
import Features
import Store
import StoreBackends
import TestSupport
import Testing

@testable import Habits

/// A tracker's check-ins kept as bits, a row a year.
struct CheckinYearsTests {
    /// Dates at the edges of the words and years, leap years among them: each is one bit, and
    /// reading the bits back gives the day.
    @Test(arguments: [
        ("2026-01-01", 0, 0), ("2026-03-01", 0, 59), ("2026-03-02", 0, 60), ("2026-03-03", 1, 0), ("2026-12-31", 5, 59),
        ("2024-02-29", 0, 59), ("2024-03-01", 0, 60), ("2024-12-31", 5, 60), ("2000-12-31", 5, 60),
        ("1900-12-31", 5, 59), ("0001-01-01", 0, 0), ("9999-12-31", 5, 59),
    ])
    func eachDateIsOneBit(text: String, word: Int, bit: Int) throws {
        let date = try #require(CivilDate(text))
        let position = CheckinYears.position(of: date)
        #expect((position.word, position.bit) == (word, bit), "\(text)")
        var days: [Int] = []
        CheckinYears.appendDays(year: position.year, word: { $0 == word ? Int64(1) << bit : 0 }, to: &days)
        #expect(days == [date.day], "\(text)")
    }

    /// A store made before the bits were kept: migrating builds them from the live check-ins
    /// (in SQL, on each backend), so the statistics read the same days as before.
    @Test(arguments: TestStore.names)
    func migratingBuildsTheBitsFromTheCheckIns(backend: String) throws {
        let dates = [
            "2023-01-01", "2023-03-01", "2023-12-31", "2024-02-29", "2024-03-01", "2024-03-02", "2024-12-31",
            "2025-07-14",
        ]
        let rows = """
            INSERT INTO users (user_id, first_seen_at) VALUES ('u1', 0), ('u2', 0);
            INSERT INTO habit_trackers (user_id, tracker_id, name, kind, created_on, created_at) VALUES
                ('u1', 'walk', 'Walk', 'irregular', '2023-01-01', 0), ('u1', 'read', 'Read', 'irregular', '2023-01-01', 0),
                ('u2', 'walk', 'Walk', 'irregular', '2023-01-01', 0);
            INSERT INTO habit_checkins (user_id, tracker_id, date, checked_at, unchecked_at) VALUES
            \(dates.map { "('u1', 'walk', '\($0)', 1, NULL)" }.joined(separator: ", ")),
                ('u1', 'walk', '2025-07-15', 1, 2), ('u1', 'read', '2024-06-01', 1, 2), ('u2', 'walk', '2024-06-01', 1, NULL);
            """
        let test = try TestStore(backend, schema: Features.all.schema) { location in
            let old = try StoreLocation(location).open(schema: Features.all.schema.filter { $0.name != "habits.7" })
            try old.execute(rows)
        }
        #expect(try test.store.appliedMigrations().last == "habits.7", "\(backend)")
        let store = test.store
        let days = try store.habitCheckinDays(user: "u1")
        #expect(days == ["walk": dates.compactMap { CivilDate($0)?.day }], "\(backend)")
        #expect(try store.habitCheckinDays(user: "u2") == ["walk": [CivilDate("2024-06-01")!.day]], "\(backend)")
    }
}
