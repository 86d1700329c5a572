import Core
import Features
import RevisionStore
import Revisions
import Store
import TestSupport
import Testing

/// Publish, republish, diff, rollback and the audit trail, on a real store.
@Suite struct PublishTests {
    /// The bundled files with one edit.
    static func edited(_ replace: String, _ with: String, in path: String) throws -> RevisionFiles {
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        let text = try #require(files[path])
        try #require(text.contains(replace))
        files[path] = text.replacingOccurrences(of: replace, with: with)
        return try RevisionFiles(files)
    }

    @Test func publishRepublishDiffRollbackAndAudit() throws {
        let database = TestDatabase(schema: Features.all.schema)
        var clock = 1_000.0
        let publisher = RevisionPublisher(store: database.store, engine: Features.all, now: { clock })
        let first = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        let one = try publisher.publish(first, author: "ann", message: "the bundled rules")
        #expect(one.activated && one.revision?.parent == nil)
        #expect(try database.store.activeRevision()?.revision == first.revision)

        // The same files again: nothing changes, no new activation.
        clock = 2_000
        let again = try publisher.publish(first, author: "bob", message: "again")
        #expect(!again.activated && again.revision?.id == first.revision)
        #expect(try database.store.revisionActivations().count == 1)

        clock = 3_000
        let second = try Self.edited(
            "Every day you check a habit, your streak grows.", "Each day counts.", in: "Rules/locales/en.yaml")
        let two = try publisher.publish(second, author: "bob", message: "shorter tooltip")
        #expect(two.activated && two.revision?.parent == first.revision)
        #expect(try database.store.ruleRevisions().map(\.id) == [second.revision, first.revision])

        let diff = try publisher.diff(try database.store.ruleRevision(first.revision), try #require(two.revision))
        #expect(diff.files.map(\.path) == ["Rules/locales/en.yaml"], "a text is part of the revision")
        #expect(diff.rulesChanged == [] && diff.rulesAdded == [] && diff.rulesRemoved == [], "a tooltip is no rule")
        #expect(
            diff.files[0].lines?.contains(.added("  onboarding.first_launch.streaks_page.tooltip: Each day counts."))
                == true, "\(diff.text)")

        // Roll back by a prefix of the id.
        clock = 4_000
        let back = try publisher.activate(
            String(first.revision.prefix(8)), author: "ann", message: "undo", action: "rollback")
        #expect(back.id == first.revision)
        #expect(try database.store.activeRevision()?.revision == first.revision)

        let audit = try database.store.auditEntries()
        #expect(audit.map(\.action) == ["rollback", "publish", "publish"])
        #expect(audit.map(\.actor) == ["ann", "bob", "ann"])
        #expect(audit[0].detail["from"]?.stringValue == second.revision)
        #expect(audit[1].detail["files"]?["changed"] == 1)
    }

    @Test func refusedRevisionsAreNotKept() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let publisher = RevisionPublisher(store: database.store, engine: Features.all, now: { 1 })
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        files["Rules/broken.yaml"] = "rule: [oops"
        let outcome = try publisher.publish(try RevisionFiles(files), author: "ann", message: "broken")
        #expect(!outcome.report.passed && outcome.revision == nil)
        #expect(try database.store.ruleRevisions().isEmpty)
        #expect(try database.store.activeRevision() == nil)
        #expect(try database.store.auditEntries().isEmpty)
    }

    static let unknown: [(String, String)] = [
        ("abcd", "unknown_revision"), ("ab", "unknown_revision"), ("zzzz", "unknown_revision"),
        ("", "unknown_revision"),
    ]

    @Test(arguments: unknown)
    func anUnknownRevisionIsNamed(id: String, code: String) throws {
        let database = TestDatabase(schema: Features.all.schema)
        let error = #expect(throws: RevisionError.self) { try database.store.ruleRevision(id) }
        #expect(error?.code == code)
    }

    @Test func anAuthorAndAMessageAreRequired() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let publisher = RevisionPublisher(store: database.store, engine: Features.all, now: { 1 })
        let files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        #expect(throws: PublishError.self) { try publisher.publish(files, author: "ann", message: "  ") }
        #expect(throws: PublishError.self) { try publisher.publish(files, author: "", message: "x") }
    }
}
