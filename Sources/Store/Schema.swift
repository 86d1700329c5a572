import SQLite

/// The store's schema, as numbered migrations recorded in `schema_migrations`.
///
/// Kept: users and dogs, one manifest per dog, profile records, block progress, events (with
/// their outcome), reminders, the analytics outbox, onboarding progress, challenge progress
/// and rewards. Derivable things (block status, progress bars, statistics) are not stored.
/// Times are seconds since 1970 (REAL); the text an event sent is kept beside where it
/// matters (its offset decides local dates).
enum Schema {
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "users, dogs, events and effects",
            sql: """
                CREATE TABLE users (
                    user_id       TEXT PRIMARY KEY,
                    first_seen_at REAL NOT NULL,
                    timezone      TEXT
                );
                CREATE TABLE dogs (
                    dog_id        TEXT PRIMARY KEY,
                    user_id       TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    name          TEXT NOT NULL,
                    birth_date    TEXT,
                    age_range     TEXT,
                    breed         TEXT,
                    timezone      TEXT,
                    metrics       TEXT NOT NULL DEFAULT '{}',
                    registered_at REAL NOT NULL
                );
                CREATE INDEX dogs_user ON dogs (user_id);
                CREATE TABLE manifests (
                    dog_id        TEXT PRIMARY KEY REFERENCES dogs (dog_id) ON DELETE CASCADE,
                    rule_revision TEXT NOT NULL,
                    created_at    REAL NOT NULL,
                    manifest      TEXT NOT NULL
                );
                CREATE TABLE events (
                    id          INTEGER PRIMARY KEY,
                    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    event_id    TEXT NOT NULL,
                    type        TEXT NOT NULL,
                    dog_id      TEXT,
                    occurred_at REAL NOT NULL,
                    occurred_at_text TEXT NOT NULL,
                    received_at REAL NOT NULL,
                    payload     TEXT NOT NULL,
                    outcome     TEXT NOT NULL,
                    UNIQUE (user_id, event_id)
                );
                CREATE TABLE profile_records (
                    id            INTEGER PRIMARY KEY,
                    dog_id        TEXT NOT NULL REFERENCES dogs (dog_id) ON DELETE CASCADE,
                    kind          TEXT NOT NULL,
                    recorded_at   REAL NOT NULL,
                    recorded_at_text TEXT NOT NULL,
                    payload       TEXT NOT NULL,
                    source        TEXT NOT NULL,
                    rule_revision TEXT,
                    block_id      TEXT,
                    event         INTEGER REFERENCES events (id) ON DELETE SET NULL
                );
                CREATE INDEX profile_records_dog ON profile_records (dog_id, kind, recorded_at);
                CREATE TABLE block_progress (
                    dog_id       TEXT NOT NULL REFERENCES dogs (dog_id) ON DELETE CASCADE,
                    block_id     TEXT NOT NULL,
                    step         TEXT NOT NULL,
                    completed_at REAL NOT NULL,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (dog_id, block_id, step)
                );
                CREATE TABLE reminders (
                    id      INTEGER PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    dog_id  TEXT,
                    kind    TEXT NOT NULL,
                    due_at  REAL NOT NULL,
                    payload TEXT NOT NULL,
                    status  TEXT NOT NULL DEFAULT 'pending',
                    sent_at REAL,
                    event   INTEGER REFERENCES events (id) ON DELETE SET NULL
                );
                CREATE INDEX reminders_due ON reminders (status, due_at);
                CREATE TABLE analytics_outbox (
                    id          INTEGER PRIMARY KEY,
                    user_id     TEXT NOT NULL,
                    name        TEXT NOT NULL,
                    occurred_at REAL NOT NULL,
                    properties  TEXT NOT NULL,
                    event       INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    sent_at     REAL
                );
                CREATE INDEX analytics_unsent ON analytics_outbox (sent_at, id);
                CREATE TABLE onboarding_progress (
                    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    flow         TEXT NOT NULL,
                    step_id      TEXT NOT NULL,
                    completed_at REAL NOT NULL,
                    skipped      INTEGER NOT NULL DEFAULT 0,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (user_id, flow, step_id)
                );
                CREATE TABLE challenge_progress (
                    challenge_id TEXT NOT NULL,
                    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    value        REAL NOT NULL DEFAULT 0,
                    updated_at   REAL NOT NULL,
                    completed_at REAL,
                    PRIMARY KEY (challenge_id, user_id)
                );
                CREATE TABLE rewards (
                    id         INTEGER PRIMARY KEY,
                    user_id    TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    reward     TEXT NOT NULL,
                    amount     REAL,
                    badge_id   TEXT,
                    reason     TEXT,
                    granted_at REAL NOT NULL,
                    event      INTEGER REFERENCES events (id) ON DELETE SET NULL
                );
                """),
        Migration(
            version: 2, name: "catalog snapshots",
            sql: """
                CREATE TABLE catalog_snapshots (
                    hash       TEXT PRIMARY KEY,
                    catalog    TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE INDEX events_dog ON events (dog_id, occurred_at);
                CREATE INDEX reminders_pending ON reminders (user_id, kind, status);
                """),
        Migration(
            version: 3, name: "service: rule quarantine, dog change index",
            sql: """
                CREATE TABLE rule_quarantine (
                    rule_id        TEXT NOT NULL,
                    rule_digest    TEXT NOT NULL,
                    reason         TEXT NOT NULL,
                    input_digest   TEXT,
                    detail         TEXT NOT NULL DEFAULT '',
                    quarantined_at REAL NOT NULL,
                    PRIMARY KEY (rule_id, rule_digest)
                );
                CREATE INDEX events_dog_changes ON events (dog_id, id);
                """),
        Migration(
            version: 4, name: "experiment assignments, onboarding flows and shown steps",
            sql: """
                CREATE TABLE experiment_assignments (
                    subject        TEXT NOT NULL,
                    experiment     TEXT NOT NULL,
                    user_id        TEXT,
                    variation      TEXT NOT NULL,
                    bucket_version INTEGER NOT NULL,
                    hash_value     REAL NOT NULL,
                    assigned_at    REAL NOT NULL,
                    viewed_at      REAL,
                    PRIMARY KEY (subject, experiment)
                );
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
        Migration(
            version: 5, name: "habit trackers, categories, schedules and check-ins",
            sql: """
                CREATE TABLE habit_categories (
                    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    category_id TEXT NOT NULL,
                    name        TEXT NOT NULL,
                    created_at  REAL NOT NULL,
                    PRIMARY KEY (user_id, category_id)
                );
                CREATE TABLE habit_trackers (
                    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
                    tracker_id  TEXT NOT NULL,
                    name        TEXT NOT NULL,
                    kind        TEXT NOT NULL CHECK (kind IN ('habit', 'irregular')),
                    category_id TEXT,
                    emoji       TEXT,
                    color       TEXT,
                    pinned      INTEGER NOT NULL DEFAULT 0,
                    created_on  TEXT NOT NULL,
                    created_at  REAL NOT NULL,
                    PRIMARY KEY (user_id, tracker_id)
                );
                CREATE TABLE habit_schedules (
                    user_id    TEXT NOT NULL,
                    tracker_id TEXT NOT NULL,
                    from_date  TEXT NOT NULL,
                    days       TEXT NOT NULL,
                    PRIMARY KEY (user_id, tracker_id, from_date),
                    FOREIGN KEY (user_id, tracker_id) REFERENCES habit_trackers (user_id, tracker_id) ON DELETE CASCADE
                );
                CREATE TABLE habit_checkins (
                    user_id    TEXT NOT NULL,
                    tracker_id TEXT NOT NULL,
                    date       TEXT NOT NULL,
                    checked_at REAL NOT NULL,
                    event      INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (user_id, tracker_id, date),
                    FOREIGN KEY (user_id, tracker_id) REFERENCES habit_trackers (user_id, tracker_id) ON DELETE CASCADE
                );
                """),
        Migration(
            version: 6, name: "challenge participants, running totals, activity feed and digests",
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
            version: 7, name: "rule revisions, their files, activations and the audit trail",
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
            version: 8, name: "the provenance of each event's effects",
            sql: """
                ALTER TABLE events ADD COLUMN rule_revision TEXT;
                ALTER TABLE events ADD COLUMN provenance TEXT;
                """),
        Migration(
            version: 9,
            name: "what each event contributed to a challenge; a user's events by time, and analytics by user",
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
                CREATE INDEX events_user_time ON events (user_id, occurred_at);
                CREATE INDEX analytics_user ON analytics_outbox (user_id, name);
                """),
        Migration(
            version: 10, name: "habit check-ins are kept when unchecked, so that checking a day again counts once",
            sql: """
                ALTER TABLE habit_checkins ADD COLUMN unchecked_at REAL;
                """),
        Migration(
            version: 11, name: "per-input rule quarantine (a rule set aside for one dog's or user's input only)",
            sql: """
                CREATE TABLE rule_input_quarantine (
                    rule_id        TEXT NOT NULL,
                    rule_digest    TEXT NOT NULL,
                    input_key      TEXT NOT NULL,
                    reason         TEXT NOT NULL,
                    input_digest   TEXT,
                    detail         TEXT NOT NULL DEFAULT '',
                    quarantined_at REAL NOT NULL,
                    PRIMARY KEY (rule_id, rule_digest, input_key)
                );
                """),
        Migration(
            version: 12, name: "a pending reminder keeps the runner-up of its kind, for when it moves sooner",
            sql: """
                ALTER TABLE reminders ADD COLUMN runner_due REAL;
                ALTER TABLE reminders ADD COLUMN runner_payload TEXT;
                """),
        Migration(
            version: 13,
            name: "a version of each user's habit data, so that their statistics are kept until it changes",
            sql: """
                CREATE TABLE habit_versions (
                    user_id TEXT PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
                    version INTEGER NOT NULL
                );
                """),
        Migration(
            version: 14, name: "the AI interpretation's read reports of a dog, found without reading its other events",
            sql: """
                CREATE INDEX events_interpretation_read ON events (dog_id, occurred_at)
                    WHERE type = 'ai_interpretation_read';
                """),
        Migration(
            version: 15, name: "the statistics read a user's check-ins from an index alone, by tracker and date",
            sql: """
                CREATE INDEX habit_checkins_done ON habit_checkins (user_id, tracker_id, date, unchecked_at)
                    WHERE unchecked_at IS NULL;
                """),
        Migration(
            version: 16,
            name:
                "each tracker keeps the user's habit version of its check-ins' last change, so that the statistics re-read only the trackers that changed",
            sql: """
                ALTER TABLE habit_trackers ADD COLUMN checkins_version INTEGER NOT NULL DEFAULT 0;
                """),
        Migration(
            version: 17,
            name:
                "each tracker keeps the time of its check-ins' last change and its latest streak, so that a check-in made in time order reads no earlier check-ins",
            sql: """
                ALTER TABLE habit_trackers ADD COLUMN checkins_changed_at REAL;
                ALTER TABLE habit_trackers ADD COLUMN streak_date TEXT;
                ALTER TABLE habit_trackers ADD COLUMN streak_days INTEGER;
                ALTER TABLE habit_trackers ADD COLUMN prior_streak_date TEXT;
                ALTER TABLE habit_trackers ADD COLUMN prior_streak_days INTEGER;
                UPDATE habit_trackers SET checkins_changed_at = (
                    SELECT max(CASE WHEN c.unchecked_at > c.checked_at THEN c.unchecked_at ELSE c.checked_at END)
                    FROM habit_checkins c WHERE c.user_id = habit_trackers.user_id AND c.tracker_id = habit_trackers.tracker_id);
                """),
        Migration(
            version: 18,
            name:
                "each tracker's live check-ins as bits, a row a year, so that the statistics read a few rows a tracker instead of one a check-in",
            sql: """
                CREATE TABLE habit_checkin_years (
                    user_id    TEXT NOT NULL,
                    tracker_id TEXT NOT NULL,
                    year       INTEGER NOT NULL,
                    w0 INTEGER NOT NULL DEFAULT 0, w1 INTEGER NOT NULL DEFAULT 0, w2 INTEGER NOT NULL DEFAULT 0,
                    w3 INTEGER NOT NULL DEFAULT 0, w4 INTEGER NOT NULL DEFAULT 0, w5 INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (user_id, tracker_id, year),
                    FOREIGN KEY (user_id, tracker_id) REFERENCES habit_trackers (user_id, tracker_id) ON DELETE CASCADE
                );
                INSERT INTO habit_checkin_years (user_id, tracker_id, year, w0, w1, w2, w3, w4, w5)
                SELECT user_id, tracker_id, year,
                    sum(CASE WHEN day / 61 = 0 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END),
                    sum(CASE WHEN day / 61 = 1 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END),
                    sum(CASE WHEN day / 61 = 2 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END),
                    sum(CASE WHEN day / 61 = 3 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END),
                    sum(CASE WHEN day / 61 = 4 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END),
                    sum(CASE WHEN day / 61 = 5 THEN CAST(1 AS INTEGER) << CAST(day % 61 AS INT) ELSE 0 END)
                FROM (
                    SELECT user_id, tracker_id, year,
                        CASE month WHEN '01' THEN 0 WHEN '02' THEN 31 WHEN '03' THEN 59 WHEN '04' THEN 90 WHEN '05' THEN 120 WHEN '06' THEN 151
                            WHEN '07' THEN 181 WHEN '08' THEN 212 WHEN '09' THEN 243 WHEN '10' THEN 273 WHEN '11' THEN 304 ELSE 334 END
                        + CAST(substr(date, 9, 2) AS INTEGER) - 1
                        + CASE WHEN month > '02' AND year % 4 = 0 AND (year % 100 <> 0 OR year % 400 = 0) THEN 1 ELSE 0 END
                        AS day
                    FROM (
                        SELECT user_id, tracker_id, date, substr(date, 6, 2) AS month,
                            CAST(substr(date, 1, 4) AS INTEGER) AS year
                        FROM habit_checkins WHERE unchecked_at IS NULL
                    ) AS live
                ) AS days
                GROUP BY user_id, tracker_id, year;
                """),
        Migration(
            version: 19,
            name:
                "secrets the service keeps in its store, made on first use (the key of challenge participants' handles)",
            sql: """
                CREATE TABLE service_secrets (
                    name       TEXT PRIMARY KEY,
                    value      TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                """),
    ]
}
