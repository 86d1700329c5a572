import Core
import Features
import Foundation
import JQ
import Store
import TestSupport
import Testing

@Suite struct IngestCommandTests {
    static let events = """
        {"event_id":"r1","user_id":"u1","type":"dog_registered","occurred_at":"2026-11-29T09:00:00+01:00","dog_id":"q-123","payload":{"name":"Q","age_range":"4-8m","timezone":"Europe/Berlin"}}
        {"event_id":"w1","user_id":"u1","type":"weight_saved","occurred_at":"2026-11-29T09:05:00+01:00","dog_id":"q-123","payload":{"kg":12.6}}

        {"event_id":"w1","user_id":"u1","type":"weight_saved","occurred_at":"2026-11-29T09:05:00+01:00","dog_id":"q-123","payload":{"kg":12.6}}
        {"event_id":"old","user_id":"u1","type":"journey_opened","occurred_at":"2026-11-01T09:00:00Z"}
        not json at all
        """

    func ingest(_ files: TemporaryDirectory, _ path: String, _ extra: [String] = []) -> CLIRun {
        journey(
            ["ingest", path, "--db", files.database, "--rules", Repository.rules, "--now", "2026-11-29T12:00:00Z"]
                + extra)
    }

    @Test func textLinesAndSummary() throws {
        let files = try TemporaryDirectory()
        let run = ingest(files, try files.write("events.jsonl", Self.events))
        #expect(run.status == 1, "a rejected event makes the exit status 1")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0].hasPrefix("accepted   u1/r1  dog_registered  dog_registered(q-123)"))
        #expect(lines[1].contains("record_added(weight)") && lines[1].contains("reminder_scheduled(weigh_again)"))
        #expect(lines[2].hasPrefix("duplicate  u1/w1"))
        #expect(lines[3].contains("too_late: occurred"))
        #expect(lines[4].contains("invalid: line 6 is not JSON"))
        #expect(lines[5].hasPrefix("5 events: 2 accepted, 1 duplicate, 2 rejected (invalid 1, too_late 1)"))
    }

    @Test func jsonLinesAndResendingChangesNothing() throws {
        let files = try TemporaryDirectory()
        let path = try files.write("events.jsonl", Self.events)
        _ = ingest(files, path)
        let again = ingest(files, path, ["--format", "json"])
        let results = try again.stdout.split(separator: "\n").map { try JV.parse(String($0)).json() }
        #expect(results.count == 5)
        #expect(results.prefix(3).allSatisfy { $0["status"] == "duplicate" })
        #expect(results[1]["effects"]?.arrayValue?.count == 4, "a duplicate returns the original effects")
        #expect(results[3]["code"] == "too_late")
        #expect(results[4]["event_id"] == .null)
        #expect(again.stderr.contains("5 events: 0 accepted, 3 duplicate, 2 rejected"))

        let stats = journey("db", "stats", "--db", files.database, "--format", "json")
        let tables = try #require(try JV.parse(stats.stdout).json()["tables"])
        #expect(tables["events"] == 2)
        #expect(tables["profile_records"] == 1)
        #expect(tables["reminders"] == 1)
    }

    @Test func standardInput() throws {
        let files = try TemporaryDirectory()
        let run = journey(
            [
                "ingest", "-", "--db", files.database, "--rules", Repository.rules, "--now", "2026-11-29T12:00:00Z",
                "-q",
            ],
            stdin: Array(Self.events.utf8))
        #expect(run.stdout.split(separator: "\n").count == 3, "quiet: the two rejected lines and the summary")
    }

    /// `-q` with `--format json`: only the rejected events' objects (the summary is on stderr).
    @Test func quietJSONPrintsOnlyRejectedEvents() throws {
        let files = try TemporaryDirectory()
        let run = journey(
            [
                "ingest", "-", "--db", files.database, "--rules", Repository.rules, "--now", "2026-11-29T12:00:00Z",
                "-q", "--format", "json",
            ],
            stdin: Array(Self.events.utf8))
        let lines = run.stdout.split(separator: "\n").map { (try? JV.parse(String($0)).json()) ?? .null }
        #expect(lines.count == 2, "quiet: the two rejected events only: \(run.stdout)")
        #expect(lines.allSatisfy { $0["status"] == "rejected" }, "\(run.stdout)")
        #expect(run.stderr.contains("accepted"), "the summary stays on stderr")
    }

    @Test func usageAndMissingFiles() throws {
        #expect(journey("ingest").status == 64)
        #expect(journey("ingest", "a", "b").status == 64)
        #expect(journey("ingest", "x", "--batch-size", "0").status == 64)
        #expect(journey("ingest", "x", "--late-window", "a week").status == 64)
        let missing = journey("ingest", "/nonexistent/events.jsonl", "--db", "/tmp/never.sqlite")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read /nonexistent/events.jsonl: no such file"))
    }

    @Test func migrateAndStats() throws {
        let files = try TemporaryDirectory()
        let first = journey("db", "migrate", "--db", files.database)
        #expect(first.status == 0)
        let names = Features.all.schema.migrations.map(\.name)
        #expect(
            first.stdout.contains("applied \(names.joined(separator: ", ")); \(names.count) migrations"),
            "\(first.stdout)")
        #expect(names.starts(with: ["core.1", "core.2"]) && names.contains("habits.7"))
        #expect(
            journey("db", "migrate", "--db", files.database).stdout.contains(
                "is up to date (\(names.count) migrations)")
        )
        let stats = journey("db", "stats", "--db", files.database)
        #expect(stats.stdout.contains(": \(names.count) migrations, "), "\(stats.stdout)")
        #expect(stats.stdout.contains("events"))
        let json = try JSONParser().parse(journey("db", "stats", "--db", files.database, "--format", "json").stdout)
        #expect(json["migrations"] == .array(names.map(JSON.string)) && json["pending"] == [])
        let none = journey("db", "stats", "--db", files.file("none.sqlite"))
        #expect(none.status == 1)
        #expect(none.stderr.contains("no store at"))
        #expect(journey("db").stdout.contains("SUBCOMMANDS:"))
        #expect(journey("db", "frobnicate").status == 64)
        #expect(journey("help", "db", "migrate").stdout.contains("USAGE: journey db migrate"))
    }
}

extension TemporaryDirectory {
    /// The store file of the commands under test.
    var database: String { file("journey.sqlite") }
}
