import Core
import Habits
import RuleEngine
import TestSupport
import Testing

/// A `habit_stat` rule that fails never fails the statistics: it is its fallback's answer, or
/// null, and `degraded` says which.
struct DegradedStatisticsTests {
    @Test func aFailingStatisticIsNullOrItsFallback() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "s.yaml",
            """
            rules:
              - {rule: habits.fine, kind: habit_stat, expr: '1'}
              - {rule: habits.loops, kind: habit_stat, expr: 'def f: f; f', budget: 10ms}
              - {rule: habits.broken, kind: habit_stat, expr: 'error("no")', fallback: '0'}

            """)
        let loaded = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: [.habitStat])
            .load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let stats = try HabitStatistics.json(facts: ["trackers": [], "days": []], hasData: true, evaluator: evaluator)
        #expect(stats["fine"] == 1 && stats["loops"] == .null && stats["broken"] == 0)
        #expect(
            stats["degraded"] == [
                ["rule": "habits.loops", "reason": "failed", "error": "timeout", "answered_by": "nothing"],
                ["rule": "habits.broken", "reason": "failed", "error": "runtime_error", "answered_by": "fallback"],
            ])
    }
}
