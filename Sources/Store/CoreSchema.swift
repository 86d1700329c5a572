/// The engine's own tables, as migrations named `core.N`: users and dogs, events (with their
/// outcome), profile records, reminders, the analytics outbox, rewards and the rule quarantine.
/// Derivable things (block status, progress bars, statistics) are not stored. Times are seconds
/// since 1970 (REAL); the text an event sent is kept beside where it matters (its offset
/// decides local dates).
enum CoreSchema {
    static let migrations: [Migration] = [
        Migration(
            "core.1", "users, dogs, events, profile records, reminders, the analytics outbox and rewards", numbered: 1,
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
            "core.2", "a dog's events by time, and a user's pending reminders by kind", numbered: 2,
            sql: """
                CREATE INDEX events_dog ON events (dog_id, occurred_at);
                CREATE INDEX reminders_pending ON reminders (user_id, kind, status);
                """),
        Migration(
            "core.3", "the rule quarantine, and a dog's events by row id (its data version)", numbered: 3,
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
            "core.4", "the provenance of each event's effects", numbered: 8,
            sql: """
                ALTER TABLE events ADD COLUMN rule_revision TEXT;
                ALTER TABLE events ADD COLUMN provenance TEXT;
                """),
        Migration(
            "core.5", "a user's events by time, and analytics by user", numbered: 9,
            sql: """
                CREATE INDEX events_user_time ON events (user_id, occurred_at);
                CREATE INDEX analytics_user ON analytics_outbox (user_id, name);
                """),
        Migration(
            "core.6", "per-input rule quarantine (a rule set aside for one dog's or user's input only)", numbered: 11,
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
            "core.7", "a pending reminder keeps the runner-up of its kind, for when it moves sooner", numbered: 12,
            sql: """
                ALTER TABLE reminders ADD COLUMN runner_due REAL;
                ALTER TABLE reminders ADD COLUMN runner_payload TEXT;
                """),
        Migration(
            "core.8", "secrets the service keeps in its store, made on first use (the key of challenge handles)",
            sql: """
                CREATE TABLE service_secrets (
                    name       TEXT PRIMARY KEY,
                    value      TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                """),
        Migration(
            "core.9", "a user's profile: the locale they read the app in (beside their time zone)",
            sql: """
                ALTER TABLE users ADD COLUMN locale TEXT;
                """),
        Migration(
            "core.10",
            "foreign keys to events deferrable to the commit (PostgreSQL: events are written by COPY, which may come after the rows that refer to them)",
            sql: "",
            postgres: """
                DO $$
                DECLARE key record;
                BEGIN
                    FOR key IN
                        SELECT conrelid::regclass AS source, conname FROM pg_constraint
                        WHERE contype = 'f' AND confrelid = 'events'::regclass AND NOT condeferrable
                    LOOP
                        EXECUTE format('ALTER TABLE %s ALTER CONSTRAINT %I DEFERRABLE', key.source, key.conname);
                    END LOOP;
                END
                $$;
                """),
        Migration(
            "core.11", "a user's profile: the name others see them by (a challenge's feed and ranking)",
            sql: """
                ALTER TABLE users ADD COLUMN display_name TEXT;
                """),
    ]
}
