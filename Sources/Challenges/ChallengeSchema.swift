import Store

/// The challenges' tables, as migrations named `challenges.N`: participants and their progress,
/// running totals, the activity feed, the daily digests and what each event contributed.
enum ChallengeSchema {
    static let migrations: [Migration] = [
        Migration(
            "challenges.1", "challenge progress", numbered: 1,
            sql: """
                CREATE TABLE challenge_progress (
                    challenge_id TEXT NOT NULL,
                    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    value        REAL NOT NULL DEFAULT 0,
                    updated_at   REAL NOT NULL,
                    completed_at REAL,
                    PRIMARY KEY (challenge_id, user_id)
                );
                """),
        Migration(
            "challenges.2", "challenge participants, running totals, activity feed and digests", numbered: 6,
            sql: """
                ALTER TABLE challenge_progress ADD COLUMN joined_at REAL;
                ALTER TABLE challenge_progress ADD COLUMN team TEXT;
                CREATE INDEX challenge_progress_user ON challenge_progress (user_id);
                CREATE INDEX challenge_progress_rank ON challenge_progress (challenge_id, value DESC);
                CREATE TABLE challenge_totals (
                    challenge_id TEXT NOT NULL,
                    team         TEXT NOT NULL DEFAULT '',
                    value        REAL NOT NULL DEFAULT 0,
                    participants INTEGER NOT NULL DEFAULT 0,
                    completed_at REAL,
                    PRIMARY KEY (challenge_id, team)
                );
                CREATE TABLE challenge_feed (
                    id           INTEGER PRIMARY KEY,
                    challenge_id TEXT NOT NULL,
                    user_id      TEXT NOT NULL,
                    action       TEXT NOT NULL,
                    value        REAL,
                    occurred_at  REAL NOT NULL,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL
                );
                CREATE INDEX challenge_feed_newest ON challenge_feed (challenge_id, occurred_at DESC, id DESC);
                CREATE TABLE challenge_digests (
                    challenge_id TEXT NOT NULL,
                    date         TEXT NOT NULL,
                    sent_at      REAL NOT NULL,
                    PRIMARY KEY (challenge_id, date)
                );
                """),
        Migration(
            "challenges.3", "what each event contributed to a challenge", numbered: 9,
            sql: """
                CREATE TABLE challenge_contributions (
                    challenge_id TEXT NOT NULL,
                    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    event_key    TEXT NOT NULL,
                    occurred_at  REAL NOT NULL,
                    delta        REAL NOT NULL,
                    input        TEXT,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (challenge_id, user_id, event_key)
                );
                CREATE INDEX challenge_contributions_time ON challenge_contributions (challenge_id, occurred_at);
                """),
    ]
}
