import PostgresStore
import SQLiteStore
import Store
import StoreBackends
import TestSupport
import Testing

/// What `--db` may name: a file path or `sqlite:` URL (the embedded store), `:memory:`, or a
/// `postgresql://` URL; anything else is refused with the location and the reason.
@Suite struct StoreLocationTests {
    static let readable: [(String, StoreLocation.Backend)] = [
        ("journey.sqlite", .sqlite(path: "journey.sqlite")),
        ("./data/journey.sqlite", .sqlite(path: "./data/journey.sqlite")),
        ("/var/lib/journey/j.sqlite", .sqlite(path: "/var/lib/journey/j.sqlite")),
        ("sqlite:journey.sqlite", .sqlite(path: "journey.sqlite")),
        ("sqlite:///var/lib/j.sqlite", .sqlite(path: "/var/lib/j.sqlite")),
        (":memory:", .sqlite(path: ":memory:")),
        ("postgresql://journey@db:5432/journey", .postgres(url: "postgresql://journey@db:5432/journey")),
        ("postgres://db/journey", .postgres(url: "postgres://db/journey")),
        // Several hosts: libpq connects to the first that accepts writes (a promoted standby).
        (
            "postgresql://journey@a:5432,b:5433/journey?target_session_attrs=read-write",
            .postgres(url: "postgresql://journey@a:5432,b:5433/journey?target_session_attrs=read-write")
        ),
        (
            "host=a,b port=5432,5433 dbname=journey target_session_attrs=read-write",
            .postgres(url: "host=a,b port=5432,5433 dbname=journey target_session_attrs=read-write")
        ),
        ("dbname=journey", .postgres(url: "dbname=journey")),
        ("./hosts=a.sqlite", .sqlite(path: "./hosts=a.sqlite")),
    ]

    @Test(arguments: readable)
    func readsTheBackend(text: String, backend: StoreLocation.Backend) throws {
        let location = try StoreLocation(text)
        #expect(location.backend == backend)
        #expect(location.description == text)
    }

    static let refused: [(String, String)] = [
        ("", "it is empty"),
        ("sqlite:", "it names no file"),
        ("mysql://db/journey", "`mysql:` is not a store this engine knows"),
        ("https://example.com/db", "`https:` is not a store this engine knows"),
    ]

    @Test(arguments: refused)
    func refusesWhatNamesNoStore(text: String, problem: String) {
        #expect {
            _ = try StoreLocation(text)
        } throws: { error in
            "\(error)".contains("`\(text)` is not a store location") && "\(error)".contains(problem)
        }
    }

    /// A password never reaches a log or another process's command line: the location is
    /// shown without it, and the password is handed over on its own (percent-decoded).
    static let passwords: [(String, String, String?)] = [
        ("postgresql://journey:s%40cret@db:5432/journey", "postgresql://journey@db:5432/journey", "s@cret"),
        ("postgresql://db/journey?sslmode=require&password=pw", "postgresql://db/journey?sslmode=require", "pw"),
        ("postgresql://journey@db/journey", "postgresql://journey@db/journey", nil),
        ("postgres://db/journey", "postgres://db/journey", nil),
        ("./journey.sqlite", "./journey.sqlite", nil),
        ("host=a,b password=pw dbname=journey", "host=a,b dbname=journey", "pw"),
        (#"host=a password='p w\'s' user=j"#, "host=a user=j", "p w's"),
    ]

    @Test(arguments: passwords)
    func showsTheLocationWithoutItsPassword(text: String, shown: String, password: String?) throws {
        let location = try StoreLocation(text)
        #expect(location.withoutPassword == shown)
        #expect(location.password == password)
    }

    @Test func existsOnlyOnceTheFileDoes() throws {
        let file = TemporaryDatabaseFile()
        let location = try StoreLocation(file.path)
        #expect(!location.exists)
        let store = try location.open(schema: .core)
        #expect(location.exists && store.location == file.path)
        #expect(try !StoreLocation(":memory:").exists, "a private store never exists beforehand")
    }

    @Test func aPostgresServerThatDoesNotAnswerIsNamedWithTheReason() throws {
        #expect {
            _ = try StoreLocation("postgresql://journey:secret@127.0.0.1:1/journey").open(schema: .core)
        } throws: { error in
            "\(error)".contains("postgresql://journey@127.0.0.1:1/journey") && "\(error)".contains("cannot connect")
                && !"\(error)".contains("secret")
        }
    }

    /// A multi-host location whose first host does not answer: the store opens on the second.
    @Test(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
    func aMultiHostLocationOpensOnTheHostThatAcceptsWrites() throws {
        let backend = try TestStore("postgres", schema: .core)
        let url = try #require(backend.location.firstMatch(of: #/^postgres(ql)?://([^@/]*@)?([^:/]+):(\d+)(/.*)$/#))
        let multiHost =
            "postgresql://\(url.output.2 ?? "")127.0.0.1:1,\(url.output.3):\(url.output.4)\(url.output.5)"
            + "&target_session_attrs=read-write"
        let store = try StoreLocation(multiHost).open(schema: .core)
        #expect(store is PostgresStore)
        #expect(try store.appliedMigrations() == Schema.core.migrations.map(\.name))
    }

    @Test(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
    func aPostgresURLOpensAPostgresStore() throws {
        let backend = try TestStore("postgres", schema: .core)
        let store = try StoreLocation(backend.location).open(schema: .core)
        #expect(store is PostgresStore && store.location == backend.location)
        #expect(try store.appliedMigrations() == Schema.core.migrations.map(\.name))
    }
}

/// The administration and change signal of the embedded store: migrations are idempotent and
/// apply the whole schema, the store answers `ping`, and `externalVersion` moves for commits of
/// another connection only.
@Suite struct StoreAdministrationTests {
    @Test func migrateIsIdempotentAndAppliesTheWholeSchema() throws {
        let file = TemporaryDatabaseFile()
        let location = try StoreLocation(file.path)
        let fresh = try location.open(schema: .core, migrate: false)
        let applied = try fresh.migrate()
        #expect(applied == Schema.core.migrations.map(\.name) && applied.first == "core.1")
        #expect(try fresh.migrate() == [], "nothing left to apply")
        #expect(try fresh.appliedMigrations() == applied)
        #expect(try fresh.statistics().tables.contains { $0.name == "events" })
        #expect(try fresh.integrityCheck() == "ok")
        try fresh.ping()
    }

    @Test func externalVersionMovesForOtherConnectionsOnly() throws {
        let file = TemporaryDatabaseFile()
        let location = try StoreLocation(file.path)
        let one = try location.open(schema: .core)
        let other = try location.open(schema: .core)
        let start = try one.externalVersion()
        try one.ensureUser("u1", firstSeenAt: 1)
        #expect(try one.externalVersion() == start, "its own commit")
        try other.ensureUser("u2", firstSeenAt: 2)
        #expect(try one.externalVersion() != start, "another connection's commit")
    }

    @Test func aFailedTransactionKeepsNothing() throws {
        let file = TemporaryDatabaseFile()
        let store = try StoreLocation(file.path).open(schema: .core)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.transaction {
                try store.ensureUser("u1", firstSeenAt: 1)
                throw Stop()
            }
        }
        #expect(try store.first("SELECT count(*) FROM users", []) { $0.integer(0) } == 0)
        // Inside a transaction, a failed unit undoes only itself.
        try store.transaction {
            try store.ensureUser("u1", firstSeenAt: 1)
            _ = try? store.savepoint {
                try store.ensureUser("u2", firstSeenAt: 2)
                throw Stop()
            }
        }
        #expect(try store.rows("SELECT user_id FROM users ORDER BY user_id") { $0.text(0) } == ["u1"])
    }
}
