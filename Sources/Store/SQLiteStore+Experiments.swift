import SQLite

extension SQLiteStore {
    // MARK: Experiment assignments

    public func assignment(subject: String, experiment: String) throws -> StoredAssignment? {
        try connection.prepare(
            """
            SELECT user_id, variation, bucket_version, hash_value, assigned_at, viewed_at
            FROM experiment_assignments WHERE subject = ? AND experiment = ?
            """
        ).first([.text(subject), .text(experiment)]) { row in
            StoredAssignment(
                subject: subject, experiment: experiment, userID: row.text(0), variation: row.text(1) ?? "",
                bucketVersion: Int(row.integer(2)), hashValue: row.real(3), assignedAt: row.real(4),
                viewedAt: row.isNull(5) ? nil : row.real(5))
        }
    }

    public func saveAssignment(_ assignment: StoredAssignment) throws {
        try connection.run(
            """
            INSERT OR REPLACE INTO experiment_assignments
                (subject, experiment, user_id, variation, bucket_version, hash_value, assigned_at, viewed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(assignment.subject), .text(assignment.experiment), .optional(assignment.userID),
                .text(assignment.variation), .integer(Int64(assignment.bucketVersion)), .real(assignment.hashValue),
                .real(assignment.assignedAt), assignment.viewedAt.map(SQLiteValue.real) ?? .null,
            ])
    }

    public func removeAssignment(subject: String, experiment: String) throws {
        try connection.run(
            "DELETE FROM experiment_assignments WHERE subject = ? AND experiment = ?",
            [.text(subject), .text(experiment)])
    }

    public func markAssignmentViewed(subject: String, experiment: String, at: Double) throws -> Bool {
        try connection.run(
            "UPDATE experiment_assignments SET viewed_at = ? WHERE subject = ? AND experiment = ? AND viewed_at IS NULL",
            [.real(at), .text(subject), .text(experiment)])
        return connection.changes > 0
    }

    // MARK: Onboarding

    public func onboardingProgress(user: String, flow: String) throws -> OnboardingFlowProgress? {
        guard
            var progress = try connection.prepare(
                "SELECT variant, version, started_at FROM onboarding_flows WHERE user_id = ? AND flow = ?"
            ).first(
                [.text(user), .text(flow)],
                { row in
                    OnboardingFlowProgress(
                        flow: flow, variant: row.text(0) ?? "", version: row.text(1) ?? "", startedAt: row.real(2))
                })
        else { return nil }
        try connection.prepare(
            "SELECT step_id, completed_at, skipped FROM onboarding_progress WHERE user_id = ? AND flow = ?"
        ).query([.text(user), .text(flow)]) { row in
            progress.steps[row.text(0) ?? ""] = OnboardingStepProgress(
                completedAt: row.real(1), skipped: row.integer(2) != 0)
        }
        try connection.prepare("SELECT step_id, shown_at FROM onboarding_shown WHERE user_id = ? AND flow = ?")
            .query([.text(user), .text(flow)]) { row in progress.shownAt[row.text(0) ?? ""] = row.real(1) }
        return progress
    }

    public func startOnboardingFlow(user: String, flow: String, variant: String, version: String, at: Double) throws {
        try connection.run(
            """
            INSERT INTO onboarding_flows (user_id, flow, variant, version, started_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (user_id, flow) DO UPDATE SET version = ?4
            """, [.text(user), .text(flow), .text(variant), .text(version), .real(at)])
    }

    public func markOnboardingStepShown(user: String, flow: String, step: String, at: Double) throws {
        try connection.run(
            """
            INSERT INTO onboarding_shown (user_id, flow, step_id, shown_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id, flow, step_id) DO NOTHING
            """, [.text(user), .text(flow), .text(step), .real(at)])
    }

    public func onboardingHistories(flow: String) throws -> [String: OnboardingFlowProgress] {
        var histories: [String: OnboardingFlowProgress] = [:]
        try connection.prepare("SELECT user_id, variant, version, started_at FROM onboarding_flows WHERE flow = ?")
            .query([.text(flow)]) { row in
                histories[row.text(0) ?? ""] = OnboardingFlowProgress(
                    flow: flow, variant: row.text(1) ?? "", version: row.text(2) ?? "", startedAt: row.real(3))
            }
        try connection.prepare("SELECT user_id, step_id, completed_at, skipped FROM onboarding_progress WHERE flow = ?")
            .query([.text(flow)]) { row in
                histories[row.text(0) ?? ""]?.steps[row.text(1) ?? ""] = OnboardingStepProgress(
                    completedAt: row.real(2), skipped: row.integer(3) != 0)
            }
        try connection.prepare("SELECT user_id, step_id, shown_at FROM onboarding_shown WHERE flow = ?")
            .query([.text(flow)]) { row in histories[row.text(0) ?? ""]?.shownAt[row.text(1) ?? ""] = row.real(2) }
        return histories
    }

    public func onboardingFlowKeys() throws -> [String] {
        var keys: [String] = []
        try connection.prepare("SELECT DISTINCT flow FROM onboarding_flows ORDER BY flow").query {
            keys.append($0.text(0) ?? "")
        }
        return keys
    }
}
