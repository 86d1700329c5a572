import Core
import Foundation
import JQ
import TestSupport
import Testing

/// `journey preview` on the sample store (examples/events.jsonl: Q and Miso, both active in
/// the week before 2026-11-29): an unchanged candidate changes nothing; a candidate whose
/// `by-branch` variant (Q's owner's) picks the other end changes exactly Q's recommendation and
/// the offer that came with it; a candidate that does not load is refused.
@Suite struct PreviewCommandTests {
    static let now = ["--now", "2026-11-29T12:00:00Z"]

    func preview(_ folder: TemporaryDirectory, _ database: String) throws -> (CLIRun, JSON) {
        let run = journey(
            [
                "preview", "--candidate", folder.path + "/Rules", "--candidate-plugins", Repository.plugins, "--db",
                database, "--rules", Repository.rules, "--plugins", Repository.plugins, "--format", "json",
            ] + Self.now)
        return (run, (try? JV.parse(run.stdout).json()) ?? .null)
    }

    @Test func unchangedChangedAndBrokenCandidates() throws {
        let database = TemporaryDatabaseFile()
        let ingest = journey(
            ["ingest", Repository.examples + "/events.jsonl", "--db", database.path, "--rules", Repository.rules, "-q"]
                + Self.now)
        try #require(ingest.status == 0, "\(ingest.stderr)")
        let folder = try TemporaryDirectory()
        try folder.copy(Repository.rules, to: "Rules")

        let (same, unchanged) = try preview(folder, database.path)
        #expect(same.status == 0, "\(same.stderr)")
        #expect(unchanged["dog_count"] == 2 && unchanged["changed"] == 0, "\(same.stdout)")

        let file = folder.path + "/Rules/journey/recommendation.yaml"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try #require(text.contains("    | min_by([-($progress"))
        try text.replacingOccurrences(of: "    | min_by([-($progress", with: "    | max_by([-($progress")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (changedRun, changed) = try preview(folder, database.path)
        #expect(changedRun.status == 0, "\(changedRun.stderr)")
        #expect(changed["changed"] == 2, "\(changedRun.stdout)")
        let recommended = changed["by_decision"]?["today.recommended"]
        #expect(recommended?["changed"] == 1)
        #expect(recommended?["examples"]?[0]?["dog_id"] == "q-123")
        #expect(recommended?["examples"]?[0]?["before"] == "vaccination-record")
        #expect(changed["by_decision"]?["today.offer"]?["changed"] == 1)
        #expect(changed["by_rule"]?["recommendation (by-branch)"] == 1, "the rule that made the difference")
        #expect(unchanged["by_rule"] == [:])

        // The same change through `journey publish --max-changed`: 2 of 12 decisions change.
        let publish = { (limit: String) in
            journey(
                [
                    "publish", "--rules", folder.path + "/Rules", "--plugins", Repository.plugins, "--db",
                    database.path,
                    "-m", "max_by", "--max-changed", limit,
                ] + Self.now)
        }
        let first = journey(
            [
                "publish", "--rules", Repository.rules, "--plugins", Repository.plugins, "--db", database.path, "-m",
                "first",
            ])
        #expect(first.status == 0, "\(first.stderr)")
        let over = publish("10%")
        #expect(over.status == 2 && over.stderr.contains("changes 2 of 12 decisions (16.7%)"), "\(over.stderr)")
        let within = publish("20%")
        #expect(!within.stderr.contains("--max-changed"), "past the preview: \(within.stderr)")
        #expect(publish("1000%").status == 64)

        try "rule: [x".write(toFile: folder.path + "/Rules/broken.yaml", atomically: true, encoding: .utf8)
        let (broken, _) = try preview(folder, database.path)
        #expect(broken.status == 2 && broken.stderr.contains("yaml_syntax"), "\(broken.stderr)")
    }
}

/// The revision commands on a store that does not exist say to publish first.
@Suite struct RevisionCommandTests {
    @Test(arguments: [["revisions"], ["audit"], ["show", "abcd"], ["diff", "abcd"], ["rollback", "abcd", "-m", "x"]])
    func aMissingStoreSaysToPublishFirst(arguments: [String]) {
        let run = journey(arguments + ["--db", "/nonexistent/journey.sqlite"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains("no store at /nonexistent/journey.sqlite (publish first: journey publish"),
            "\(run.stderr)")
    }
}
