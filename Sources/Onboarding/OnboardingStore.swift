import Core
import Store

/// The onboarding feature's rows: each user's flows (variant and version seen), the steps done
/// or skipped, and when each step was first shown.
extension StoreReader {
    /// A user's progress in onboarding flow `flow` (a flow key), if they started it.
    public func onboardingProgress(user: String, flow: String) throws -> OnboardingFlowProgress? {
        guard
            var progress = try first(
                "SELECT variant, version, started_at FROM onboarding_flows WHERE user_id = ? AND flow = ?",
                [.text(user), .text(flow)],
                { row in
                    OnboardingFlowProgress(
                        flow: flow, variant: row.text(0) ?? "", version: row.text(1) ?? "", startedAt: row.real(2))
                })
        else { return nil }
        try query(
            "SELECT step_id, completed_at, skipped FROM onboarding_progress WHERE user_id = ? AND flow = ?",
            [.text(user), .text(flow)]
        ) { row in
            progress.steps[row.text(0) ?? ""] = OnboardingStepProgress(
                completedAt: row.real(1), skipped: row.integer(2) != 0)
        }
        try query(
            "SELECT step_id, shown_at FROM onboarding_shown WHERE user_id = ? AND flow = ?", [.text(user), .text(flow)]
        ) { row in progress.shownAt[row.text(0) ?? ""] = row.real(1) }
        return progress
    }

    /// Every user's progress in flow `flow`, by user id (for funnels).
    public func onboardingHistories(flow: String) throws -> [String: OnboardingFlowProgress] {
        var histories: [String: OnboardingFlowProgress] = [:]
        try query("SELECT user_id, variant, version, started_at FROM onboarding_flows WHERE flow = ?", [.text(flow)]) {
            row in
            histories[row.text(0) ?? ""] = OnboardingFlowProgress(
                flow: flow, variant: row.text(1) ?? "", version: row.text(2) ?? "", startedAt: row.real(3))
        }
        try query(
            "SELECT user_id, step_id, completed_at, skipped FROM onboarding_progress WHERE flow = ?", [.text(flow)]
        ) { row in
            histories[row.text(0) ?? ""]?.steps[row.text(1) ?? ""] = OnboardingStepProgress(
                completedAt: row.real(2), skipped: row.integer(3) != 0)
        }
        try query("SELECT user_id, step_id, shown_at FROM onboarding_shown WHERE flow = ?", [.text(flow)]) { row in
            histories[row.text(0) ?? ""]?.shownAt[row.text(1) ?? ""] = row.real(2)
        }
        return histories
    }

    /// Every flow key anyone started.
    public func onboardingFlowKeys() throws -> [String] {
        try rows("SELECT DISTINCT flow FROM onboarding_flows ORDER BY flow") { $0.text(0) ?? "" }
    }
}

extension StoreReader {
    /// Whether the same analytics event (user, name, time, properties) was sent already.
    public func analyticsWasSent(_ analytics: AnalyticsEvent) throws -> Bool {
        try first(
            """
            SELECT 1 FROM analytics_outbox WHERE user_id = ? AND name = ? AND occurred_at = ? AND properties = ?
            AND sent_at IS NOT NULL LIMIT 1
            """,
            [
                .text(analytics.userID), .text(analytics.name), .real(analytics.occurredAt),
                .text(JSON.object(analytics.properties).compactText),
            ]
        ) { _ in true } ?? false
    }
}

extension Store {
    /// Forgets what is kept of `user`'s onboarding (flows, steps done and shown) and its
    /// analytics not yet sent, before it is made again from their events in time order.
    public func forgetOnboarding(user: String) throws {
        for table in ["onboarding_progress", "onboarding_shown", "onboarding_flows"] {
            try run("DELETE FROM \(table) WHERE user_id = ?", [.text(user)])
        }
        try run(
            """
            DELETE FROM analytics_outbox WHERE user_id = ? AND sent_at IS NULL
            AND name IN ('onboarding_step_completed', 'onboarding_flow_completed')
            """, [.text(user)])
    }

    /// Records that `user` started onboarding flow `flow` (a flow key), or updates the version
    /// seen when it already had.
    public func startOnboardingFlow(user: String, flow: String, variant: String, version: String, at: Double) throws {
        try run(
            """
            INSERT INTO onboarding_flows (user_id, flow, variant, version, started_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (user_id, flow) DO UPDATE SET version = ?4
            """, [.text(user), .text(flow), .text(variant), .text(version), .real(at)])
    }

    /// Records when a step was first shown (later calls keep the first time).
    public func markOnboardingStepShown(user: String, flow: String, step: String, at: Double) throws {
        try run(
            """
            INSERT INTO onboarding_shown (user_id, flow, step_id, shown_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id, flow, step_id) DO NOTHING
            """, [.text(user), .text(flow), .text(step), .real(at)])
    }

    /// Marks an onboarding step done (or skipped); false when it already was.
    public func completeOnboardingStep(
        user: String, flow: String, step: String, skipped: Bool, at: Double, event: Int64?
    ) throws -> Bool {
        try run(
            """
            INSERT INTO onboarding_progress (user_id, flow, step_id, completed_at, skipped, event) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, flow, step_id) DO NOTHING
            """,
            [.text(user), .text(flow), .text(step), .real(at), .boolean(skipped), .optional(event)]) > 0
    }
}
