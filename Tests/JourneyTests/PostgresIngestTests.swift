import Core
import Engine
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// The whole ingest path (every feature's consumers and stores) on PostgreSQL gives the
/// results and the rows it gives on SQLite: each of the examples, twice (the second time
/// every event is a duplicate).
@Suite(.enabled(if: TestStore.postgresURL != nil)) struct PostgresIngestTests {
    struct Ingested {
        var results: [IngestResult]
        /// Every table's columns, and its rows (as text, numbers written alike), sorted.
        var tables: [String: (columns: [String], rows: [[String]])]
    }

    static func ingest(_ example: String, on backend: TestStore) throws -> Ingested {
        let loaded = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let now = Timestamp.parse("2026-11-29T12:00:00Z")!
        let ingestor = Features.all.makeIngestor(
            store: backend.store, evaluator: evaluator, policy: IngestPolicy(clock: { now }), cores: 1)
        let lines = try String(contentsOfFile: Repository.examples + "/" + example, encoding: .utf8)
        let events = try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) }
        let results = ingestor.ingest(events) + ingestor.ingest(events)
        let store = backend.store
        let columnsSQL =
            backend.name == "sqlite"
            ? "SELECT name FROM pragma_table_info(?) ORDER BY cid"
            : """
            SELECT column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
            """
        var tables: [String: (columns: [String], rows: [[String]])] = [:]
        for table in try store.statistics().tables.map(\.name) where table != "schema_migrations" {
            let columns = try store.rows(columnsSQL, [.text(table)]) { $0.text(0) ?? "" }
            let rows = try store.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table)") { row in
                (0..<Int32(columns.count)).map { column in
                    guard let text = row.text(column) else { return "NULL" }
                    return Double(text).map { "\($0)" } ?? text
                }
            }
            tables[table] = (columns, rows.sorted { $0.lexicographicallyPrecedes($1) })
        }
        return Ingested(results: results, tables: tables)
    }

    @Test(arguments: ["events.jsonl", "habits.jsonl", "challenges.jsonl", "onboarding.jsonl", "experiment.jsonl"])
    func examplesIngestAlikeOnSQLiteAndPostgreSQL(example: String) throws {
        let sqlite = try Self.ingest(example, on: TestStore("sqlite"))
        let postgres = try Self.ingest(example, on: TestStore("postgres"))
        let half = sqlite.results.count / 2
        #expect(sqlite.results[..<half].contains { $0.status == .accepted })
        #expect(sqlite.results[half...].allSatisfy { $0.status == .duplicate })
        #expect(postgres.results == sqlite.results)
        #expect(postgres.tables.keys.sorted() == sqlite.tables.keys.sorted())
        for (table, expected) in sqlite.tables {
            let found = postgres.tables[table]
            #expect(found?.columns == expected.columns, "\(table)")
            #expect(found?.rows == expected.rows, "\(table)")
        }
        #expect(sqlite.tables["events"]?.rows.isEmpty == false)
    }
}
