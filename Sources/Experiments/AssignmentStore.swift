import Core
import Store

/// The experiments feature's rows: each subject's sticky assignment to an experiment.
extension StoreReader {
    /// A subject's kept assignment to an experiment (kept for the rest of a write transaction).
    public func assignment(subject: String, experiment: String) throws -> StoredAssignment? {
        try keptFirst(
            assignmentSQL, [.text(subject), .text(experiment)], table: "experiment_assignments",
            keys: assignmentKeys(subject, experiment)
        ) { StoredAssignment(subject: subject, experiment: experiment, $0, from: 0) }
    }

    /// Reads the assignments of `subjects` (their keys) to `experiments` in one statement (per
    /// 100 subjects) and keeps each pair's (``assignment(subject:experiment:)``), none
    /// included, for the rest of the write transaction. Nothing outside a transaction.
    func keepAssignments(subjects: [String], experiments: [String]) throws {
        guard let reads = transactionReads, reads.isKeeping, !experiments.isEmpty else { return }
        try inChunks(of: subjects) { chunk, placeholders in
            var found: [String: [String: StoredAssignment]] = [:]
            try query(
                """
                SELECT subject, experiment, user_id, variation, bucket_version, hash_value, assigned_at, viewed_at
                FROM experiment_assignments WHERE subject IN (\(placeholders))
                """, chunk.map(SQLValue.text)
            ) { row in
                let (subject, experiment) = (row.text(0) ?? "", row.text(1) ?? "")
                found[subject, default: [:]][experiment] = StoredAssignment(
                    subject: subject, experiment: experiment, row, from: 2)
            }
            for subject in Set(chunk) {
                for experiment in experiments {
                    keepAssignment(found[subject]?[experiment], subject: subject, experiment: experiment)
                }
            }
        }
    }

    /// Keeps `assignment` as what ``assignment(subject:experiment:)`` answers now.
    func keepAssignment(_ assignment: StoredAssignment?, subject: String, experiment: String) {
        keepFirst(
            assignmentSQL, [.text(subject), .text(experiment)], table: "experiment_assignments",
            keys: assignmentKeys(subject, experiment), answer: assignment)
    }
}

extension StoredAssignment {
    /// The assignment read from `row`'s columns `user_id, variation, bucket_version, hash_value,
    /// assigned_at, viewed_at`, starting at column `first`.
    fileprivate init(subject: String, experiment: String, _ row: any SQLRow, from first: Int32) {
        self.init(
            subject: subject, experiment: experiment, userID: row.text(first), variation: row.text(first + 1) ?? "",
            bucketVersion: Int(row.integer(first + 2)), hashValue: row.real(first + 3),
            assignedAt: row.real(first + 4), viewedAt: row.optionalReal(first + 5))
    }
}

private let assignmentSQL = """
    SELECT user_id, variation, bucket_version, hash_value, assigned_at, viewed_at
    FROM experiment_assignments WHERE subject = ? AND experiment = ?
    """

private func assignmentKeys(_ subject: String, _ experiment: String) -> [(column: String, value: SQLValue)] {
    [("subject", .text(subject)), ("experiment", .text(experiment))]
}

extension Store {
    /// Keeps (or replaces) a subject's assignment to an experiment (the write is deferred: its
    /// error, if any, is thrown by the next statement).
    public func saveAssignment(_ assignment: StoredAssignment) throws {
        try runDeferred(
            """
            INSERT INTO experiment_assignments
                (subject, experiment, user_id, variation, bucket_version, hash_value, assigned_at, viewed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (subject, experiment) DO UPDATE SET user_id = excluded.user_id,
                variation = excluded.variation, bucket_version = excluded.bucket_version,
                hash_value = excluded.hash_value, assigned_at = excluded.assigned_at, viewed_at = excluded.viewed_at
            """,
            [
                .text(assignment.subject), .text(assignment.experiment), .optional(assignment.userID),
                .text(assignment.variation), .integer(Int64(assignment.bucketVersion)), .real(assignment.hashValue),
                .real(assignment.assignedAt), .optional(assignment.viewedAt),
            ])
    }

    /// Forgets a subject's assignment (it is outside the experiment now).
    public func removeAssignment(subject: String, experiment: String) throws {
        try run(
            "DELETE FROM experiment_assignments WHERE subject = ? AND experiment = ?",
            [.text(subject), .text(experiment)])
    }

    /// Marks an assignment used; false when it already was (or there is none).
    public func markAssignmentViewed(subject: String, experiment: String, at: Double) throws -> Bool {
        try run(
            "UPDATE experiment_assignments SET viewed_at = ? WHERE subject = ? AND experiment = ? AND viewed_at IS NULL",
            [.real(at), .text(subject), .text(experiment)]) > 0
    }

    /// Moves the first use of a kept assignment back to `at` (an earlier use arrived late),
    /// with its assignment time and its `experiment_viewed` analytics event while unsent.
    public func moveAssignmentUse(subject: String, experiment: String, userID: String?, to at: Double) throws {
        try run(
            """
            UPDATE experiment_assignments SET viewed_at = ?1,
                assigned_at = CASE WHEN assigned_at > ?1 THEN ?1 ELSE assigned_at END
            WHERE subject = ?2 AND experiment = ?3 AND viewed_at > ?1
            """, [.real(at), .text(subject), .text(experiment)])
        guard let userID else { return }
        // Its properties begin with the experiment's key (the assigner writes them so).
        let prefix = "{\"experiment\":\(JSON.string(experiment).compactText),"
        try run(
            """
            UPDATE analytics_outbox SET occurred_at = ?
            WHERE user_id = ? AND name = 'experiment_viewed' AND sent_at IS NULL AND occurred_at > ?
            AND properties LIKE ? ESCAPE '\\'
            """, [.real(at), .text(userID), .real(at), .text(EventTypeFilter.likePattern(prefix) + "%")])
    }
}
