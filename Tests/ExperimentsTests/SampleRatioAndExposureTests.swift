import Core
import Experiments
import Features
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// The sample-ratio check and the users exposed to more than one variation, on stores written
/// through the store's API and the assigner.
struct SampleRatioAndExposureTests {
    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!

    static func experiment(
        weights: String = "[0.5, 0.5]", bucketVersion: Int = 1, metrics: String = ""
    ) -> String {
        """
        experiments:
          - key: greeting-test
            variations: [control, warm]
            weights: \(weights)
            bucket_version: \(bucketVersion)
        \(metrics)
        """
    }

    static func report(_ database: TestDatabase, rules: String = experiment()) throws -> ExperimentReport {
        let loaded = RulesFolder(["experiments.yaml": rules]).load()
        let ruleSet = try #require(loaded.ruleSet, "\(loaded.diagnostics)")
        let experiment = try #require(ExperimentCatalog(ruleSet: ruleSet)["greeting-test"])
        return try ExperimentReport(
            experiment: experiment, store: database.store, evaluator: try #require(loaded.evaluator), now: Self.now)
    }

    struct SplitCase: Sendable, CustomTestStringConvertible {
        var control: Int
        var warm: Int
        var status: ExperimentReport.SampleRatio.Status
        var line: String
        var testDescription: String { "\(control)/\(warm) on 50/50: \(status.rawValue)" }
    }

    static let splits = [
        SplitCase(
            control: 4500, warm: 5500, status: .mismatch,
            line:
                "sample ratio: MISMATCH (p = 1.5e-23 < 0.001 against the weights): the users are not split as configured, so the results below may be biased; find the cause first"
        ),
        SplitCase(control: 5000, warm: 5000, status: .ok, line: "sample ratio: ok (p = 1.0000 against the weights)"),
        SplitCase(control: 4950, warm: 5050, status: .ok, line: "sample ratio: ok (p = 0.3173 against the weights)"),
        // Lopsided enough for p < 0.001 (1.6e-4), but 7 users are too few to tell.
        SplitCase(
            control: 7, warm: 30, status: .notEnoughTraffic,
            line: "sample ratio: not enough traffic to check (under 8 users in control); p = 0.0002"),
        SplitCase(control: 8, warm: 8, status: .ok, line: "sample ratio: ok (p = 1.0000 against the weights)"),
    ]

    /// Assignments kept as the assigner keeps them (used, so with `viewed_at`), split as given.
    @Test(arguments: splits)
    func sampleRatioMismatch(_ split: SplitCase) throws {
        let database = TestDatabase(schema: Features.all.schema)
        try database.store.transaction {
            for index in 0..<(split.control + split.warm) {
                try database.store.saveAssignment(
                    StoredAssignment(
                        subject: "user_id:u\(index)", experiment: "greeting-test", userID: "u\(index)",
                        variation: index < split.control ? "control" : "warm", bucketVersion: 1, hashValue: 0.5,
                        assignedAt: Self.now - 3600, viewedAt: Self.now - 3600))
            }
        }
        let report = try Self.report(database)
        #expect(report.variations.map(\.users) == [split.control, split.warm])
        #expect(report.sampleRatio.status == split.status, "p = \(report.sampleRatio.pValue)")
        #expect(report.text.contains(split.line + "\n"), "\(report.text)")
        #expect(report.json["sample_ratio"]?["status"] == .string(split.status.rawValue))
    }

    /// Raising the bucket version moves 4 of 10 control users to `warm`: they saw both, so they
    /// are counted apart and left out, conversions and all; the share is of everyone exposed.
    @Test func usersReassignedToAnotherVariationAreLeftOut() throws {
        let database = TestDatabase(schema: Features.all.schema)
        func assigner(_ rules: String) throws -> ExperimentAssigner {
            let ruleSet = try #require(RulesFolder(["experiments.yaml": rules]).load().ruleSet)
            return ExperimentAssigner(catalog: ExperimentCatalog(ruleSet: ruleSet), store: database.store)
        }
        let everyoneControl = try assigner(Self.experiment(weights: "[1, 0]"))
        let everyoneWarm = try assigner(Self.experiment(weights: "[0, 1]", bucketVersion: 2))
        func subject(_ n: Int) -> ExperimentSubject { ExperimentSubject(userID: "u\(n)") }
        for n in 0..<10 {
            #expect(
                try everyoneControl.use("greeting-test", subject: subject(n), now: Self.now - 7200).variation
                    == "control")
        }
        for n in 0..<4 {
            #expect(
                try everyoneWarm.use("greeting-test", subject: subject(n), now: Self.now - 3600).variation == "warm")
        }
        for n in 10..<20 {
            #expect(
                try everyoneWarm.use("greeting-test", subject: subject(n), now: Self.now - 3600).variation == "warm")
        }
        // The one kept assignment of u0 says `warm`; only its experiment_viewed events tell both.
        #expect(try database.store.assignment(subject: "user_id:u0", experiment: "greeting-test")?.variation == "warm")
        for n in [0, 1, 5, 12] {
            try database.store.appendAnalytics(
                AnalyticsEvent(userID: "u\(n)", name: "greeted", occurredAt: Self.now - 60, properties: [:]), event: nil
            )
        }
        let metrics = """
                metrics:
                  - {key: greeted, event: greeted, within: 1d}
            """
        let report = try Self.report(
            database, rules: Self.experiment(weights: "[0, 1]", bucketVersion: 2, metrics: metrics))
        #expect(report.exposedUsers == 20)
        #expect(report.multipleExposures == 4)
        #expect(report.multipleExposureShare == 0.2)
        #expect(report.variations.map(\.users) == [6, 10])
        #expect(report.metrics[0].rows.map(\.conversions) == [1, 1], "u5 in control, u12 in warm; u0 and u1 left out")
        #expect(
            report.text.contains(
                "multiple exposures: 4 users (20.0%) saw more than one variation; excluded from the analysis"))
        #expect(report.json["multiple_exposures"] == ["users": 4, "share": 0.2, "excluded": true])
    }
}
