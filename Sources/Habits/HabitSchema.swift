import Store

/// The habit trackers' tables, as migrations named `habits.N`: categories, trackers, their
/// schedules and check-ins (also as bits, a row a year), and each user's habit data version.
enum HabitSchema {
    static let migrations: [Migration] = [
        Migration(
            "habits.1", "habit trackers, categories, schedules and check-ins", numbered: 5,
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
            "habits.2", "habit check-ins are kept when unchecked, so that checking a day again counts once",
            numbered: 10,
            sql: """
                ALTER TABLE habit_checkins ADD COLUMN unchecked_at REAL;
                """),
        Migration(
            "habits.3", "a version of each user's habit data, so that their statistics are kept until it changes",
            numbered: 13,
            sql: """
                CREATE TABLE habit_versions (
                    user_id TEXT PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
                    version INTEGER NOT NULL
                );
                """),
        Migration(
            "habits.4", "the statistics read a user's check-ins from an index alone, by tracker and date", numbered: 15,
            sql: """
                CREATE INDEX habit_checkins_done ON habit_checkins (user_id, tracker_id, date, unchecked_at)
                    WHERE unchecked_at IS NULL;
                """),
        Migration(
            "habits.5",
            "each tracker keeps the user's habit version of its check-ins' last change, so that the statistics re-read only the trackers that changed",
            numbered: 16,
            sql: """
                ALTER TABLE habit_trackers ADD COLUMN checkins_version INTEGER NOT NULL DEFAULT 0;
                """),
        Migration(
            "habits.6",
            "each tracker keeps the time of its check-ins' last change and its latest streak, so that a check-in made in time order reads no earlier check-ins",
            numbered: 17,
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
            "habits.7",
            "each tracker's live check-ins as bits, a row a year, so that the statistics read a few rows a tracker instead of one a check-in",
            numbered: 18,
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
    ]
}
