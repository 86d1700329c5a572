import Store

/// The Dog Journey's tables, as migrations named `journey.N`: one manifest per dog, the catalogs
/// they were built from, the completed steps of each dog's blocks.
enum JourneySchema {
    static let migrations: [Migration] = [
        Migration(
            "journey.1", "one manifest per dog, and the completed steps of its blocks", numbered: 1,
            sql: """
                CREATE TABLE manifests (
                    dog_id        TEXT PRIMARY KEY REFERENCES dogs (dog_id) ON DELETE CASCADE,
                    rule_revision TEXT NOT NULL,
                    created_at    REAL NOT NULL,
                    manifest      TEXT NOT NULL
                );
                CREATE TABLE block_progress (
                    dog_id       TEXT NOT NULL REFERENCES dogs (dog_id) ON DELETE CASCADE,
                    block_id     TEXT NOT NULL,
                    step         TEXT NOT NULL,
                    completed_at REAL NOT NULL,
                    event        INTEGER REFERENCES events (id) ON DELETE SET NULL,
                    PRIMARY KEY (dog_id, block_id, step)
                );
                """),
        Migration(
            "journey.2", "the catalogs manifests were built from, by hash", numbered: 2,
            sql: """
                CREATE TABLE catalog_snapshots (
                    hash       TEXT PRIMARY KEY,
                    catalog    TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                """),
        Migration(
            "journey.3", "the AI interpretation's read reports of a dog, found without reading its other events",
            numbered: 14,
            sql: """
                CREATE INDEX events_interpretation_read ON events (dog_id, occurred_at)
                    WHERE type = 'ai_interpretation_read';
                """),
    ]
}
