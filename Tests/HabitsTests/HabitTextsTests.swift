import Core
import FeatureKit
import Habits
import Store
import Testing

/// The habit screens' texts per locale (seed 002 gives the Russian ones): a card's schedule,
/// its tracked days, the sections, the filters and the statistics' titles.
struct HabitTextsTests {
    struct ScheduleCase: Sendable, CustomTestStringConvertible {
        var days: [String]
        var kind = "habit"
        var ru: String
        var en: String
        var testDescription: String { "\(kind) \(days)" }
    }

    @Test(arguments: [
        ScheduleCase(days: CivilDate.weekdays, ru: "Каждый день", en: "Every day"),
        ScheduleCase(days: ["mon", "wed", "fri"], ru: "Пн, Ср, Пт", en: "Mon, Wed, Fri"),
        ScheduleCase(days: ["sat", "sun"], ru: "Сб, Вс", en: "Sat, Sun"),
        ScheduleCase(days: [], kind: "irregular", ru: "Нерегулярное событие", en: "Irregular"),
    ])
    func scheduleText(_ row: ScheduleCase) throws {
        let harness = try HabitsHarness()
        harness.send(
            "u1", "category_created", ["category_id": "health", "name": "Здоровье"], at: "2026-11-02T08:00:00Z")
        var payload: JSONObject = [
            "tracker_id": "t", "name": "Бег", "category": "health", "emoji": "🏃", "color": "#FF8800",
        ]
        if row.kind == "habit" {
            payload["schedule"] = .array(row.days.map(JSON.string))
        } else {
            payload["kind"] = "irregular"
        }
        let created = harness.send("u1", "tracker_created", payload, at: "2026-11-02T08:00:00Z")
        #expect(created.status == .accepted, "\(created.json)")
        let tracker = try #require(try harness.store.habitTrackers(user: "u1").first)
        #expect(HabitDay.scheduleText(tracker, on: "2026-11-02", texts: harness.texts("ru")) == row.ru)
        #expect(HabitDay.scheduleText(tracker, on: "2026-11-02", texts: harness.texts("en")) == row.en)
    }

    /// The day screen in Russian: «Трекеры», «Закрепленные», «Каждый день», «1 день», the
    /// document's four filters; and the same screen in English.
    @Test func theDayScreenInBothLocales() throws {
        let harness = try HabitsHarness()
        let at = "2026-11-02T08:00:00Z"
        harness.send("u1", "category_created", ["category_id": "health", "name": "Здоровье"], at: at)
        harness.send(
            "u1", "tracker_created",
            [
                "tracker_id": "run", "name": "Бег", "schedule": .array(CivilDate.weekdays.map(JSON.string)),
                "category": "health", "emoji": "🏃", "color": "#FF8800", "pinned": true,
            ],
            at: at)
        harness.send("u1", "habit_checked", ["tracker_id": "run"], at: at)
        let date = try #require(CivilDate("2026-11-02"))
        let ru = try HabitDay.json(user: "u1", date: date, store: harness.store, texts: harness.texts("ru"))
        #expect(ru["title"] == "Трекеры")
        #expect(ru["groups"]?[0]?["title"] == "Закрепленные", "\(ru.compactText)")
        #expect(ru["trackers"]?[0]?["schedule_text"] == "Каждый день")
        #expect(ru["trackers"]?[0]?["tracked_days_text"] == "1 день")
        #expect(
            ru["filters"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
                == ["Все трекеры", "Трекеры на сегодня", "Завершенные", "Не завершенные"])
        let en = try HabitDay.json(user: "u1", date: date, store: harness.store, texts: harness.texts("en"))
        #expect(en["title"] == "Trackers" && en["groups"]?[0]?["title"] == "Pinned")
        #expect(en["trackers"]?[0]?["tracked_days_text"] == "1 day" && en["locale"] == "en")
    }

    /// The statistics' titles are the document's: «Статистика», «Лучший период», «Идеальные
    /// дни», «Трекеров завершено», «Среднее значение».
    @Test func statisticsTitles() throws {
        let harness = try HabitsHarness()
        let stats = try HabitStatistics.json(user: "u1", store: harness.store, evaluator: harness.evaluator)
        let ru = HabitStatistics.titled(stats, texts: harness.texts("ru"))
        #expect(ru["title"] == "Статистика")
        #expect(
            ru["titles"]
                == [
                    "best_period": "Лучший период", "perfect_days": "Идеальные дни",
                    "trackers_completed": "Трекеров завершено", "average": "Среднее значение",
                ])
        let en = HabitStatistics.titled(stats, texts: harness.texts("en"))
        #expect(en["title"] == "Statistics" && en["titles"]?["best_period"] == "Best period")
    }
}
