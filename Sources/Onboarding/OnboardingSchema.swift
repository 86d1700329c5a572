import Store

/// Onboarding's tables, as migrations named `onboarding.N`: the flows users are in, the steps
/// shown and completed.
enum OnboardingSchema {
    static let migrations: [Migration] = [
        Migration(
            "onboarding.1", "onboarding progress", numbered: 1,
            sql: """
                CREATE TABLE onboarding_progress (
                    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    flow         TEXT NOT NULL,
                    step_id      TEXT NOT NULL,
                    completed_at REAL NOT NULL,
                    skipped      INTEGER NOT NULL DEFAULT 0,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (user_id, flow, step_id)
                );
                """),
        Migration(
            "onboarding.2", "onboarding flows and the steps shown", numbered: 4,
            sql: """
                CREATE TABLE onboarding_flows (
                    user_id    TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    flow       TEXT NOT NULL,
                    variant    TEXT NOT NULL,
                    version    TEXT NOT NULL,
                    started_at REAL NOT NULL,
                    PRIMARY KEY (user_id, flow)
                );
                CREATE TABLE onboarding_shown (
                    user_id  TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    flow     TEXT NOT NULL,
                    step_id  TEXT NOT NULL,
                    shown_at REAL NOT NULL,
                    PRIMARY KEY (user_id, flow, step_id)
                );
                """),
    ]
}
