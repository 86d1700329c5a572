import Core
import Experiments
import Features
import Foundation
import JQ
import RuleEngine
import SQLite
import Store
import TestSupport
import Testing

/// Sticky assignment against a real SQLite store, and rules whose variant follows it.
struct AssignmentTests {
    static func experiments(weights: String = "[0.5, 0.5]", bucketVersion: Int = 1, extra: String = "") -> String {
        """
        experiments:
          - key: greeting-test
            variations: [control, warm]
            weights: \(weights)
            hash_attribute: user_id
            bucket_version: \(bucketVersion)
        \(extra)
        """
    }

    static let rule = """
        rule: greeting
        kind: personal_note
        experiment: greeting-test
        variants:
          control: '"Hello " + .dog.name'
          warm: '"So glad to see you, " + .dog.name'
        """

    static func catalog(_ text: String) -> ExperimentCatalog {
        let folder = RulesFolder(["experiments.yaml": text, "greeting.yaml": rule])
        guard let ruleSet = folder.load().ruleSet else {
            Issue.record("\(folder.load().diagnostics)")
            return ExperimentCatalog([])
        }
        return ExperimentCatalog(ruleSet: ruleSet)
    }

    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!
    static func user(_ n: Int) -> ExperimentSubject { ExperimentSubject(userID: "user-\(n)") }

    @Test func stickyAcrossWeightChanges() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let before = ExperimentAssigner(catalog: Self.catalog(Self.experiments()), store: database.store)
        var first: [String?] = []
        for n in 0..<1000 {
            first.append(try before.use("greeting-test", subject: Self.user(n), now: Self.now).variation)
        }
        #expect(first.allSatisfy { $0 != nil })
        // The product manager moves almost everyone to `warm`: kept users keep their variation.
        let after = ExperimentAssigner(
            catalog: Self.catalog(Self.experiments(weights: "[0.1, 0.9]")), store: database.store)
        var changedByHash = 0
        for n in 0..<1000 {
            let assignment = try after.use("greeting-test", subject: Self.user(n), now: Self.now + 60)
            #expect(assignment.variation == first[n])
            #expect(assignment.reason == .sticky)
            let fresh = try ExperimentAssigner(catalog: after.catalog, readingFrom: nil)
                .assignment("greeting-test", subject: Self.user(n), now: Self.now)
            if fresh.variation != first[n] { changedByHash += 1 }
        }
        #expect(changedByHash > 300, "the new weights would move many users; stickiness kept them")
        // New users follow the new weights.
        var warm = 0
        for n in 1000..<3000
        where try after.use("greeting-test", subject: Self.user(n), now: Self.now).variation == "warm" {
            warm += 1
        }
        #expect(abs(Double(warm) / 2000 - 0.9) < 0.03, "\(warm)")
    }

    @Test func raisingTheBucketVersionReassigns() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let v1 = ExperimentAssigner(catalog: Self.catalog(Self.experiments()), store: database.store)
        for n in 0..<500 { _ = try v1.use("greeting-test", subject: Self.user(n), now: Self.now) }
        let v2Catalog = Self.catalog(Self.experiments(weights: "[0, 1]", bucketVersion: 2))
        let v2 = ExperimentAssigner(catalog: v2Catalog, store: database.store)
        for n in 0..<500 {
            let assignment = try v2.use("greeting-test", subject: Self.user(n), now: Self.now + 60)
            #expect(assignment.variation == "warm")
            #expect(assignment.reason == .reassigned || assignment.reason == .sticky)
        }
        #expect(try database.count("SELECT count(*) FROM experiment_assignments WHERE bucket_version = 2") == 500)
        #expect(try database.count("SELECT count(*) FROM experiment_assignments WHERE variation = 'control'") == 0)
        // Reassigned once: afterwards sticky at version 2.
        let again = try v2.use("greeting-test", subject: Self.user(0), now: Self.now + 120)
        #expect(again.reason == .sticky)
        #expect(again.bucketVersion == 2)
    }

    @Test func experimentViewedOncePerUserAndExperiment() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let assigner = ExperimentAssigner(catalog: Self.catalog(Self.experiments()), store: database.store)
        for _ in 0..<3 {
            for n in 0..<10 { _ = try assigner.use("greeting-test", subject: Self.user(n), now: Self.now) }
        }
        #expect(try database.count("SELECT count(*) FROM analytics_outbox WHERE name = 'experiment_viewed'") == 10)
        let properties = try database.store.connection.prepare(
            "SELECT properties FROM analytics_outbox WHERE user_id = 'user-3'"
        ).first { $0.text(0) ?? "" }
        let json = try JSONParser().parse(properties ?? "")
        #expect(json["experiment"] == "greeting-test")
        #expect(json["variation"]?.stringValue != nil)
        #expect(json["hash_value"]?.numberValue == GrowthBook.hash(seed: "greeting-test", value: "user-3", version: 2))
    }

    /// Using an assignment that was already used writes nothing, so views that evaluate a rule
    /// with an experiment never wait for SQLite's write lock (another process may hold it).
    @Test func usingAViewedAssignmentTakesNoWriteLock() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let assigner = ExperimentAssigner(catalog: Self.catalog(Self.experiments()), store: database.store)
        let first = try assigner.use("greeting-test", subject: Self.user(1), now: Self.now)
        let writer = try Connection(path: database.path)
        try writer.execute("BEGIN IMMEDIATE")  // another writer holds the lock
        defer { try? writer.execute("ROLLBACK") }
        let again = try assigner.use("greeting-test", subject: Self.user(1), now: Self.now + 60)
        #expect(again.variation == first.variation)
        #expect(again.reason == .sticky)
        #expect(again.viewedAt == Self.now)
    }

    @Test func readingNeverWrites() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let assigner = ExperimentAssigner(catalog: Self.catalog(Self.experiments()), readingFrom: database.store)
        let assignment = try assigner.assignment("greeting-test", subject: Self.user(1), now: Self.now)
        #expect(assignment.reason == .assigned)
        _ = try assigner.variation(of: "greeting-test", subject: Self.user(1), now: Self.now)
        #expect(try database.count("SELECT count(*) FROM experiment_assignments") == 0)
        #expect(try database.count("SELECT count(*) FROM analytics_outbox") == 0)
    }

    struct ReasonCase: Sendable, CustomTestStringConvertible {
        var name: String
        var experiment: String
        var subject: ExperimentSubject
        var reason: Assignment.Reason
        var inExperiment: Bool
        var testDescription: String { name }
    }

    static let reasonCases: [ReasonCase] = [
        ReasonCase(
            name: "inactive", experiment: "active: false", subject: user(1), reason: .inactive, inExperiment: false),
        ReasonCase(
            name: "not started", experiment: "starts_at: 2026-12-01T00:00:00Z", subject: user(1), reason: .notStarted,
            inExperiment: false),
        ReasonCase(
            name: "ended", experiment: "ends_at: 2026-11-29T12:00:00Z", subject: user(1), reason: .ended,
            inExperiment: false),
        ReasonCase(
            name: "running (ends_at is exclusive)", experiment: "ends_at: 2026-11-29T12:00:01Z", subject: user(1),
            reason: .assigned, inExperiment: true),
        ReasonCase(
            name: "outside coverage", experiment: "coverage: 0", subject: user(1), reason: .outsideCoverage,
            inExperiment: false),
        ReasonCase(
            name: "missing attribute", experiment: "hash_attribute: dog_id", subject: user(1),
            reason: .missingAttribute, inExperiment: false),
        ReasonCase(
            name: "dog attribute", experiment: "hash_attribute: dog_id", subject: ExperimentSubject(dogID: "q-1"),
            reason: .assigned, inExperiment: true),
    ]

    @Test(arguments: reasonCases)
    func reasons(_ testCase: ReasonCase) throws {
        let text = """
            experiments:
              - key: greeting-test
                variations: [control, warm]
                \(testCase.experiment)
            """
        let assignment = try ExperimentAssigner(catalog: Self.catalog(text), readingFrom: nil)
            .assignment("greeting-test", subject: testCase.subject, now: Self.now)
        #expect(assignment.reason == testCase.reason)
        #expect((assignment.variation != nil) == testCase.inExperiment)
    }

    @Test func unknownExperiment() throws {
        let assignment = try ExperimentAssigner(catalog: ExperimentCatalog([]), readingFrom: nil)
            .assignment("nope", subject: Self.user(1), now: Self.now)
        #expect(assignment.reason == .unknownExperiment)
    }

    /// A rule with `experiment:` evaluates the variant the user is assigned, and keeps it.
    @Test func ruleVariantFollowsAssignment() throws {
        let folder = RulesFolder(["experiments.yaml": Self.experiments(), "greeting.yaml": Self.rule])
        guard let evaluator = folder.evaluator() else { return }
        let database = TestDatabase(schema: Features.all.schema)
        let assigner = ExperimentAssigner(catalog: ExperimentCatalog(ruleSet: evaluator.ruleSet), store: database.store)
        evaluator.variantChooser = assigner
        var seen = Set<String>()
        for n in 0..<40 {
            let subject = Self.user(n)
            let expected = try assigner.assignment("greeting-test", subject: subject, now: Self.now).variation!
            let result = try evaluator.evaluate(
                "greeting", input: JV(["dog": ["name": "Q"]] as JSON),
                options: EvaluationOptions(now: Self.now, subject: subject))
            #expect(result.variant == expected)
            #expect(result.value == (expected == "warm" ? "So glad to see you, Q" : "Hello Q"))
            seen.insert(expected)
        }
        #expect(seen == ["control", "warm"])
        #expect(try database.count("SELECT count(*) FROM experiment_assignments") == 40)
        // Without a subject, or with a variant asked for, the assignment is not consulted.
        let plain = try evaluator.evaluate("greeting", input: JV(["dog": ["name": "Q"]] as JSON))
        #expect(plain.variant == "control")
    }
}
