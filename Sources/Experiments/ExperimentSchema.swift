import Store

/// The experiments' tables, as migrations named `experiments.N`: each subject's sticky
/// assignment to a variation.
enum ExperimentSchema {
    static let migrations: [Migration] = [
        Migration(
            "experiments.1", "experiment assignments", numbered: 4,
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
                """)
    ]
}
