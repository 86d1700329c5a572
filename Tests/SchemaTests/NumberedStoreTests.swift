import Core
import Engine
import Features
import RuleEngine
import Store
import TestSupport
import Testing

/// Stores made when the migrations were numbered (1–18) open under the named migrations without
/// running any of those again, on both backends: only the migrations added since run; their rows
/// stay as they were, their schema is a new store's, and an engine of that time then finds the
/// store newer than it knows.
@Suite struct NumberedStoreTests {
    /// The migrations added after the numbered list (no `numbered` version).
    static let sinceNumbering = Features.all.schema.migrations.filter { $0.numbered == nil }

    /// A numbered store at version 18 holding the examples' rows: migrating records every
    /// numbered migration by name and runs only those added since.
    @Test(arguments: TestStore.names)
    func aNumberedStoreOpensWithoutRunningAnything(backend name: String) throws {
        var ran: [String]?
        var before: StoreDump?
        var first: [IngestResult] = []
        let upgraded = try TestStore(name, schema: Features.all.schema) { location in
            let old = try NumberedStore.build(at: location)
            let statistics = try old.statistics()
            #expect(statistics.pending == Self.sinceNumbering.map(\.name))
            first = try Self.ingestExamples(into: old)
            before = try StoreDump(old, backend: name)
            ran = try old.migrate()
        }
        let store = upgraded.store
        #expect(ran == Self.sinceNumbering.map(\.name), "only what was added since runs")
        #expect(try store.migrate() == [])
        let after = try StoreDump(store, backend: name)
        // The tables made since are new (and empty), those given a column since have it (core.9:
        // users.locale); every other row is as it was.
        let newTables =
            Self.sinceNumbering.flatMap(\.createdTables)
            + Self.sinceNumbering.flatMap {
                $0.sql.matches(of: #/ALTER TABLE (\w+) ADD COLUMN/#).map { String($0.output.1) }
            }
        let differences = before.map { after.differences(from: $0) }?.filter { line in
            !newTables.contains { line.hasPrefix($0 + ": columns") }
        }
        #expect(differences == [], "the rows are intact")
        #expect((before?.rowCount ?? 0) > 100, "\(before?.rowCount ?? 0) rows")
        let names = Features.all.schema.migrations.map(\.name)
        #expect(Set(try store.appliedMigrations()) == Set(names))
        let recorded = try store.rows("SELECT name, applied_at FROM migrations", []) { ($0.text(0) ?? "", $0.real(1)) }
        for (migration, at) in recorded {
            guard let version = Features.all.schema.migration(migration)?.numbered else { continue }
            #expect(NumberedStore.appliedAt(version) == at, "\(migration) is recorded as the numbered store ran it")
        }
        #expect(
            try store.rows("SELECT version FROM schema_migrations ORDER BY version", []) { $0.integer(0) }
                == Array(1...19), "version 19: engines of the numbered list refuse the store as newer")
        #expect(try store.integrityCheck() == "ok")
        let fresh = try TestStore(name, schema: Features.all.schema)
        #expect(try SchemaShape.of(store, backend: name) == SchemaShape.of(fresh.store, backend: name))
        // The store of version 18 has no `users.locale`: the events whose texts read it are refused
        // for that, each alone; none for a transaction another failure aborted.
        let aborted = first.filter { $0.message?.contains("transaction is aborted") == true }
        #expect(aborted.isEmpty, "refused for an earlier failure: \(aborted.map(Self.describe))")
        // Every event the first ingest kept is answered duplicate now, with its original effects.
        let kept = Dictionary(
            first.filter { $0.status == .accepted }.map { ("\($0.userID ?? "")/\($0.eventID ?? "")", $0) }
        ) { a, _ in a }
        let again = try Self.ingestExamples(into: store)
        let offending = again.filter { result in
            guard let original = kept["\(result.userID ?? "")/\(result.eventID ?? "")"] else { return false }
            return result.status != .duplicate || result.effects != original.effects
        }
        #expect(offending.isEmpty, "not answered as the stored original: \(offending.map(Self.describe))")
        #expect(again.contains { $0.status == .duplicate })
    }

    /// A numbered store at version 13 runs only what versions 14–18 brought, now named, and what
    /// came since; the
    /// result is a new store's schema.
    @Test(arguments: TestStore.names)
    func aPartlyNumberedStoreRunsOnlyWhatItLacks(backend name: String) throws {
        var ran: [String] = []
        var pending: [String] = []
        let upgraded = try TestStore(name, schema: Features.all.schema) { location in
            let old = try NumberedStore.build(at: location, through: 13)
            pending = try old.statistics().pending
            ran = try old.migrate()
        }
        let expected = Features.all.schema.migrations.filter { ($0.numbered ?? 14) > 13 }.map(\.name)
        #expect(
            ran == expected
                && ran == [
                    "core.8", "core.9", "core.10", "core.11", "revisions.2", "journey.3", "habits.4", "habits.5",
                    "habits.6",
                    "habits.7",
                ])
        #expect(pending == ran, "what db stats said was pending")
        let fresh = try TestStore(name, schema: Features.all.schema)
        #expect(try SchemaShape.of(upgraded.store, backend: name) == SchemaShape.of(fresh.store, backend: name))
        #expect(try upgraded.store.integrityCheck() == "ok")
    }

    /// One result in a line: its user, event, status and message.
    static func describe(_ result: IngestResult) -> String {
        "\(result.userID ?? "?")/\(result.eventID ?? "?") \(result.status) \(result.message ?? "")"
    }

    /// Every example through the engine, as of 2026-11-29 12:00 UTC; the results.
    @discardableResult
    static func ingestExamples(into store: any Store) throws -> [IngestResult] {
        let loaded = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let now = Timestamp.parse("2026-11-29T12:00:00Z")!
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: { now }), cores: 1)
        var results: [IngestResult] = []
        for example in ["events.jsonl", "habits.jsonl", "challenges.jsonl", "onboarding.jsonl", "experiment.jsonl"] {
            let lines = try String(contentsOfFile: Repository.examples + "/" + example, encoding: .utf8)
            results += ingestor.ingest(try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) })
        }
        return results
    }
}
