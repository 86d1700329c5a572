import Store

/// The served rule set's tables, as migrations named `revisions.N`: revisions with their files,
/// which one is active, and the audit trail; approvals, schedules and settings.
public enum RevisionSchema {
    public static let migrations: [Migration] = [
        Migration(
            "revisions.1", "rule revisions, their files, activations and the audit trail", numbered: 7,
            sql: """
                CREATE TABLE rule_revisions (
                    revision   TEXT PRIMARY KEY,
                    parent     TEXT,
                    author     TEXT NOT NULL,
                    message    TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    gates      TEXT NOT NULL
                );
                CREATE TABLE rule_revision_files (
                    revision TEXT NOT NULL REFERENCES rule_revisions (revision) ON DELETE CASCADE,
                    path     TEXT NOT NULL,
                    content  TEXT NOT NULL,
                    PRIMARY KEY (revision, path)
                );
                CREATE TABLE rule_activations (
                    id           INTEGER PRIMARY KEY,
                    revision     TEXT NOT NULL REFERENCES rule_revisions (revision),
                    author       TEXT NOT NULL,
                    message      TEXT NOT NULL,
                    activated_at REAL NOT NULL
                );
                CREATE TABLE audit_log (
                    id      INTEGER PRIMARY KEY,
                    at      REAL NOT NULL,
                    actor   TEXT NOT NULL,
                    action  TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    message TEXT NOT NULL,
                    detail  TEXT NOT NULL
                );
                """),
        Migration(
            "revisions.2", "approvals of revisions, scheduled activations and the revision settings",
            sql: """
                CREATE TABLE rule_approvals (
                    id       INTEGER PRIMARY KEY,
                    revision TEXT NOT NULL REFERENCES rule_revisions (revision),
                    approver TEXT NOT NULL,
                    message  TEXT NOT NULL,
                    at       REAL NOT NULL
                );
                CREATE INDEX rule_approvals_revision ON rule_approvals (revision, at);
                CREATE TABLE rule_schedules (
                    id         INTEGER PRIMARY KEY,
                    revision   TEXT NOT NULL REFERENCES rule_revisions (revision),
                    due_at     REAL NOT NULL,
                    author     TEXT NOT NULL,
                    message    TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    state      TEXT NOT NULL
                );
                CREATE INDEX rule_schedules_pending ON rule_schedules (state, due_at);
                CREATE TABLE revision_settings (
                    key   TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """),
    ]
}
