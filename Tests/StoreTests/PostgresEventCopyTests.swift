import Core
import Postgres
import PostgresStore
import Store
import TestSupport
import Testing

/// Events are queued within a transaction and sent as one statement in the pipeline of the next
/// statement that names `events`, the end of a unit or the commit; the rows that refer to them are checked at the
/// commit (deferrable foreign keys); their text comes back byte for byte; a duplicate undoes
/// its transaction, or only its unit.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresEventCopyTests {
    static func event(_ id: String, payload: JSON = ["n": 1], dog: String? = "d") -> StoredEvent {
        StoredEvent(
            userID: "u", eventID: id, type: "tap", dogID: dog, occurredAt: 1_764_403_200.5,
            occurredAtText: "2025-11-29T08:00:00.5Z", receivedAt: 1_764_403_201, payload: payload, outcome: [:])
    }

    static func eventIDs(_ store: any StoreConnection) throws -> [String] {
        try store.rows("SELECT event_id FROM events ORDER BY id", []) { $0.text(0) ?? "" }
    }

    @Test func aFreshStoreCopiesEvents() throws {
        let backend = try TestStore("postgres", schema: .core)
        #expect(try #require(backend.store as? PostgresStore).copiesEvents)
    }

    /// A store made before the foreign keys to events were deferrable inserts events a row each,
    /// until `core.10` makes them deferrable; then it copies them, and they are still checked.
    @Test func aStoreMadeBeforeDeferrableKeysCopiesEventsOnceMigrated() throws {
        let backend = try TestStore("postgres", schema: .core)
        let fresh = try #require(backend.store as? PostgresStore)
        // The core's migrations before `core.10` (the later ones undone below as well).
        let before = Set(Schema.core.migrations.prefix { $0.name != "core.10" }.map(\.name))
        // The store as an engine before `core.10` made it: every key to events checked at once.
        try fresh.execute(
            """
            DO $$
            DECLARE key record;
            BEGIN
                FOR key IN SELECT conrelid::regclass AS source, conname FROM pg_constraint
                    WHERE contype = 'f' AND confrelid = 'events'::regclass
                LOOP
                    EXECUTE format('ALTER TABLE %s ALTER CONSTRAINT %I NOT DEFERRABLE', key.source, key.conname);
                END LOOP;
            END
            $$;
            DELETE FROM migrations WHERE name IN ('core.10', 'core.11');
            ALTER TABLE users DROP COLUMN display_name;
            """)
        let old = try #require(try backend.connect(schema: .core.filter { before.contains($0.name) }) as? PostgresStore)
        #expect(!old.copiesEvents, "keys checked at once: events a row each")
        #expect(try old.statistics().pending == [], "an engine without core.10 has nothing to do")

        let migrated = try #require(try backend.connect(schema: .core) as? PostgresStore)
        #expect(try migrated.appliedMigrations() == Schema.core.migrations.map(\.name), "core.10 and after run")
        #expect(migrated.copiesEvents)
        let immediate = try migrated.first(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND confrelid = 'events'::regclass AND NOT condeferrable",
            []
        ) { $0.integer(0) }
        #expect(immediate == 0)
        try migrated.transaction {
            try migrated.ensureUser("u", firstSeenAt: 1)
            let id = try migrated.insertEvent(Self.event("a"))
            try migrated.run(
                "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES ('u', 'x', 1, '{}', ?)",
                [.integer(id)])
        }
        #expect(try Self.eventIDs(migrated) == ["a"])
        // Still checked, at the commit: a row referring to no event is refused with its transaction.
        #expect(throws: PostgresError.self) {
            try migrated.transaction {
                try migrated.run(
                    "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES ('u', 'y', 1, '{}', ?)",
                    [.integer(999_999)])
            }
        }
    }

    @Test func copiedEventsAreSeenByTheNextQueryOnEventsAndReferredToBeforeTheyAreSent() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        var seen: [String] = []
        try store.transaction {
            try store.ensureUser("u", firstSeenAt: 1)
            let id = try store.insertEvent(Self.event("a"))
            // A row referring to the event, sent before the event's row: checked at the commit.
            try store.run(
                "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES ('u', 'x', 1, '{}', ?)",
                [.integer(id)])
            _ = try store.insertEvent(Self.event("b"))
            seen = try Self.eventIDs(store)
        }
        #expect(seen == ["a", "b"], "a query naming events sees the rows queued before it")
        #expect(try Self.eventIDs(try backend.connect()) == ["a", "b"])
    }

    /// A new user's row and its first event's, both queued, go in one pipeline: the user's
    /// first (the key from events to users is checked at once), then the event's.
    @Test func anEventFollowsItsQueuedUserInOnePipeline() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        var event = Self.event("a")
        event.userID = "new"
        var seen: [String] = []
        try store.transaction {
            try store.ensureUser("new", firstSeenAt: 1)
            _ = try store.insertEvent(event)
            seen = try Self.eventIDs(store)
        }
        #expect(seen == ["a"])
        #expect(try store.event(user: "new", eventID: "a")?.userID == "new")
    }

    @Test(arguments: [
        "tab\there", "line\nbreak", "carriage\rreturn", "back\\slash \\N", "Собака 🐕", "", "\\",
    ])
    func textComesBackByteForByte(_ text: String) throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        try store.transaction {
            try store.ensureUser("u", firstSeenAt: 1)
            _ = try store.insertEvent(Self.event(text, payload: ["text": .string(text)], dog: nil))
        }
        let stored = try #require(try store.event(user: "u", eventID: text))
        #expect(stored.eventID == text)
        #expect(stored.payload["text"]?.stringValue == text)
        #expect(stored.dogID == nil, "NULL stays NULL")
        #expect(stored.occurredAt == 1_764_403_200.5)
    }

    @Test func aDuplicateEventUndoesItsTransaction() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        try store.transaction {
            try store.ensureUser("u", firstSeenAt: 1)
            _ = try store.insertEvent(Self.event("a"))
        }
        #expect {
            try store.transaction {
                _ = try store.insertEvent(Self.event("b"))
                _ = try store.insertEvent(Self.event("a"))
            }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505"
        }
        #expect(try Self.eventIDs(store) == ["a"])
        try store.transaction { _ = try store.insertEvent(Self.event("c")) }
        #expect(try Self.eventIDs(store) == ["a", "c"], "the connection works on after the failed insert")
    }

    @Test func aDuplicateEventUndoesOnlyItsUnit() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = backend.store
        var unitFailed = false
        try store.transaction {
            try store.ensureUser("u", firstSeenAt: 1)
            try store.savepoint { _ = try store.insertEvent(Self.event("a")) }
            do {
                try store.savepoint {
                    _ = try store.insertEvent(Self.event("b"))
                    _ = try store.insertEvent(Self.event("a"))
                }
            } catch {
                unitFailed = (error as? PostgresError)?.sqlState == "23505"
            }
            _ = try store.insertEvent(Self.event("c"))
        }
        #expect(unitFailed)
        #expect(try Self.eventIDs(store) == ["a", "c"])
    }
}
