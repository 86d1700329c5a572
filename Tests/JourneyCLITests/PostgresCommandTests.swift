import Features
import Foundation
import TestSupport
import Testing

/// `journey ingest`, `journey db stats` and `journey dog` with `--db postgresql://…` answer as
/// they do on SQLite.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresCommandTests {
    static let common = ["--rules", Repository.rules, "--plugins", Repository.plugins, "--now", "2026-11-29T12:00:00Z"]

    /// What the commands print for a store at `location`, without timings, paths and sizes.
    static func answers(_ location: String) -> [String] {
        let ingest = journey(["ingest", Repository.examples + "/events.jsonl", "--db", location] + common)
        let again = journey(["ingest", Repository.examples + "/events.jsonl", "--db", location] + common)
        let stats = journey("db", "stats", "--db", location)
        let today = journey(["dog", "today", "q-123", "--db", location, "--format", "json"] + common)
        for run in [ingest, again, stats, today] { #expect(run.status == 0, "\(location): \(run.stderr)") }
        func withoutTiming(_ text: String) -> String {
            text.split(separator: "\n").map { line in
                line.range(of: " in ").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
        }
        return [
            withoutTiming(ingest.stdout), withoutTiming(again.stdout),
            stats.stdout.split(separator: "\n").dropFirst().joined(separator: "\n"), today.stdout,
        ]
    }

    @Test func ingestStatsAndTodayAnswerAsOnSQLite() throws {
        let sqlite = try TestStore("sqlite", schema: Features.all.schema)
        let postgres = try TestStore("postgres", schema: Features.all.schema)
        let expected = Self.answers(sqlite.location)
        let found = Self.answers(postgres.location)
        #expect(expected[0].contains("accepted") && expected[1].contains("duplicate"))
        for (index, answer) in expected.enumerated() {
            #expect(found[index] == answer)
        }
        let stats = journey("db", "stats", "--db", postgres.location)
        #expect(
            stats.stdout.hasPrefix(postgres.location + ": \(Features.all.schema.migrations.count) migrations, "),
            "\(stats.stdout)")
    }
}
