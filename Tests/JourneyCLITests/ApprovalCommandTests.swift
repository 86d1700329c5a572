import Features
import Foundation
import SQLiteStore
import Store
import TestSupport
import Testing

/// `journey publish` and `journey rollback` against a store that `journey serve
/// --require-approvals 1` ran on obey it: the CLI is no way around approvals.
@Suite struct ApprovalCommandTests {
    @Test func publishAndRollbackObeyTheStoresApprovals() throws {
        let database = TemporaryDatabaseFile()
        let folder = try TemporaryDirectory()
        try folder.copy(Repository.rules, to: "Rules")
        func publish(_ message: String) -> CLIRun {
            journey([
                "publish", "--rules", folder.path + "/Rules", "--plugins", Repository.plugins, "--db", database.path,
                "-m", message, "--author", "ann",
            ])
        }
        let first = publish("first")
        #expect(first.status == 0 && first.stdout.contains("active now"), "\(first.stderr)")
        let firstID = try #require(first.stdout.split(separator: " ").dropFirst(2).first.map(String.init))

        // What `journey serve --require-approvals 1` writes as it starts.
        let store = try SQLiteStore(path: database.path, schema: Features.all.schema)
        _ = try store.run(
            "INSERT INTO revision_settings (key, value) VALUES ('required_approvals', '1')", [])

        try (String(contentsOfFile: folder.path + "/Rules/events/reminders.yaml", encoding: .utf8) + "\n# second\n")
            .write(toFile: folder.path + "/Rules/events/reminders.yaml", atomically: true, encoding: .utf8)
        let waiting = publish("second")
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(waiting.stdout.contains("not active: it needs 1 approval"), "\(waiting.stdout)")
        let secondID = try #require(
            waiting.stdout.split(separator: " ").dropFirst(2).first.map {
                $0.trimmingCharacters(in: .punctuationCharacters)
            })
        #expect(journey("revisions", "--db", database.path).stdout.contains("* \(firstID)"), "still the first")

        // Someone else approves it (the console's Approve): the same publish activates it.
        _ = try store.run(
            """
            INSERT INTO rule_approvals (revision, approver, message, at)
            SELECT revision, 'bob', 'ok', 9e9 FROM rule_revisions WHERE revision LIKE ? || '%'
            """, [.text(secondID)])
        let live = publish("second")
        #expect(live.status == 0 && live.stdout.contains("active now"), "\(live.stdout) \(live.stderr)")

        // Back to the first: its approvals were used when it went live; an emergency needs none.
        let rollback = journey(["rollback", firstID, "--db", database.path, "-m", "back", "--author", "ann"])
        #expect(rollback.status != 0 && rollback.stderr.contains("needs 1 approval"), "\(rollback.stderr)")
        let emergency = journey([
            "rollback", firstID, "--db", database.path, "-m", "site down", "--author", "ann", "--emergency",
        ])
        #expect(emergency.status == 0, "\(emergency.stderr)")
        #expect(journey("audit", "--db", database.path).stdout.contains("emergency_rollback"))
    }
}
