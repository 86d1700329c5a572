import Core
import Engine
import FeatureKit
import Foundation
import RuleEngine
import Store

/// Habit trackers: trackers, categories and check-ins through the ingest path, the day screen,
/// statistics as `habit_stat` rules.
public struct HabitsFeature: Feature {
    public init() {}

    public var name: String { "habits" }

    public var appEvents: [AppEvent] {
        [
            AppEvent("tracker_created", says: "creates a habit tracker", "The user created a habit tracker."),
            AppEvent(
                "tracker_updated", says: "changes a habit tracker",
                "The user changed a tracker's name, schedule or look."),
            AppEvent("tracker_deleted", says: "deletes a habit tracker", "The user deleted a habit tracker."),
            AppEvent("category_created", says: "creates a category", "The user created a category of trackers."),
            AppEvent("category_renamed", says: "renames a category", "The user renamed a category of trackers."),
            AppEvent("category_deleted", says: "deletes a category", "The user deleted a category of trackers."),
            AppEvent("habit_checked", says: "checks a habit", "The user marked a habit done for a day."),
            AppEvent("habit_unchecked", says: "unchecks a habit", "The user took back a habit's check of a day."),
        ]
    }
    public var migrations: [Migration] { HabitSchema.migrations }
    public var ruleKinds: [RuleKind] { [.habitStat] }
    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] { [HabitsConsumer()] }

    public var rejectionStatuses: [String: Int] {
        ["unknown_tracker": 404, "unknown_category": 404]
    }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var routes: [FeatureRoute] {
        [
            FeatureRoute(
                "GET", "/v1/users/{user_id}/habits/trackers", access: .user([.pathUser("user_id")]),
                HabitRoutes.trackers),
            FeatureRoute(
                "GET", "/v1/users/{user_id}/habits/day", access: .user([.pathUser("user_id")]), HabitRoutes.day),
            FeatureRoute(
                "GET", "/v1/users/{user_id}/habits/stats", access: .user([.pathUser("user_id")]), HabitRoutes.stats),
            FeatureRoute(
                "POST", "/v1/users/{user_id}/habits/checkins", access: .user([.pathUser("user_id")]), HabitRoutes.check),
        ]
    }

    public var texts: [TextUse] { HabitDay.Keys.uses + HabitStatistics.textUses }

    public var commands: [any Command.Type] { [HabitStatsCommand.self, HabitDayCommand.self] }
    public var commandGroups: [String: String] {
        ["habits": "Show a user's habit trackers: statistics, and the trackers of a day."]
    }
}
