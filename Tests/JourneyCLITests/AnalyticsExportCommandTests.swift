import CommandKit
import Core
import Features
import Foundation
import JourneyCLI
import TestSupport
import Testing

/// `journey analytics export`: the outbox as JSON Lines, each event once.
struct AnalyticsExportCommandTests {
    /// A store with the examples' analytics, and how many there are.
    func store() throws -> (TemporaryDirectory, Int) {
        let files = try TemporaryDirectory()
        let ingest = journey(
            "ingest", Repository.examples + "/events.jsonl", "--db", files.database, "--rules", Repository.rules,
            "--now", "2026-11-29T12:00:00Z", "-q")
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let total = try ids(journey("analytics", "export", "--db", files.database, "--keep")).count
        #expect(total > 10)
        return (files, total)
    }

    func ids(_ run: CLIRun) throws -> [Int] {
        try run.stdout.split(separator: "\n").map { line in
            Int(try JSONParser().parse(String(line))["id"]?.numberValue ?? -1)
        }
    }

    @Test func eachEventIsExportedOnce() throws {
        let (files, total) = try store()
        let first = journey("analytics", "export", "--db", files.database, "--limit", "3")
        #expect(first.status == 0)
        #expect(try ids(first) == [1, 2, 3])
        #expect(first.stderr.contains("3 analytics events written and marked sent"))
        let line = try JSONParser().parse(String(first.stdout.split(separator: "\n")[1]))
        #expect(line["name"] == "ai_interpretation_generated" && line["properties"]?["dog_id"] == "q-123")
        let rest = journey("analytics", "export", "--db", files.database)
        #expect(try ids(rest) == Array(4...total))
        let none = journey("analytics", "export", "--db", files.database)
        #expect(none.stdout.isEmpty && none.stderr.contains("0 analytics events written"))
    }

    @Test func keepAndSinceChooseWhatIsWrittenAndMarked() throws {
        let (files, total) = try store()
        let kept = journey("analytics", "export", "--db", files.database, "--keep")
        #expect(try ids(kept).count == total)
        #expect(try ids(journey("analytics", "export", "--db", files.database, "--keep")).count == total)
        let late = journey("analytics", "export", "--db", files.database, "--since", "2026-11-25T00:00:00Z")
        let lateIDs = try ids(late)
        #expect(!lateIDs.isEmpty && lateIDs.count < total)
        #expect(try ids(journey("analytics", "export", "--db", files.database)).count == total - lateIDs.count)
    }

    /// Output that cannot be written (a closed pipe, a full disk): nothing is marked sent.
    @Test func nothingIsMarkedWhenTheOutputFails() throws {
        final class BrokenOutput: TextOutput {
            let isTerminal = false
            let writeFailed = true
            func write(_ text: String) {}
            func flush() {}
        }
        let (files, total) = try store()
        let err = CapturedOutput()
        let status = JourneyCLI(features: Features.all).run(
            ["analytics", "export", "--db", files.database],
            io: CommandIO(stdout: BrokenOutput(), stderr: err, readStdin: { [] }))
        #expect(status == 1)
        #expect(err.text.contains("could not be written"))
        #expect(try ids(journey("analytics", "export", "--db", files.database)).count == total)
    }

    @Test(arguments: [
        (["--limit", "0"], "'--limit <n>'"), (["--since", "yesterday"], "'--since <iso8601>'"),
        (["--format", "csv"], "--format"),
    ])
    func refusesBadOptions(arguments: [String], message: String) throws {
        let run = journey(["analytics", "export", "--db", "/tmp/never.sqlite"] + arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
