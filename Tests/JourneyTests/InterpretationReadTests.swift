import Core
import Engine
import Features
import SQLiteStore
import Store
import TestSupport
import Testing

@testable import Journey

/// DJ-43: the AI interpretation is the first thing seen after onboarding, so Today and the
/// Journey overview say when it was read (`interpretation_read_at`): null until the app reports
/// it (`ai_interpretation_read`), then the first report in event time, whatever arrived first;
/// a resent report changes nothing and another user's report is refused. On SQLite and
/// PostgreSQL alike.
@Suite struct InterpretationReadTests {
    struct Report: Sendable {
        var eventID: String
        var user = "owner"
        /// Minutes after the registration.
        var minutes: Double
    }

    struct ReadCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The reports, in the order they arrive.
        var reports: [Report]
        /// Minutes after the registration of the read time shown; nil: not read.
        var readAt: Double?
        var testDescription: String { name }
    }

    static let cases: [ReadCase] = [
        ReadCase(name: "not read yet", reports: [], readAt: nil),
        ReadCase(name: "read at the report", reports: [Report(eventID: "r1", minutes: 10)], readAt: 10),
        ReadCase(
            name: "an earlier report arriving later moves it back",
            reports: [Report(eventID: "r1", minutes: 60), Report(eventID: "r2", minutes: 10)], readAt: 10),
        ReadCase(
            name: "a later report changes nothing",
            reports: [Report(eventID: "r1", minutes: 10), Report(eventID: "r2", minutes: 60)], readAt: 10),
        ReadCase(
            name: "a resent report changes nothing, even dated earlier",
            reports: [Report(eventID: "r1", minutes: 30), Report(eventID: "r1", minutes: 5)], readAt: 30),
        ReadCase(
            name: "another user's report for the dog is refused",
            reports: [Report(eventID: "r1", user: "rosa", minutes: 10)], readAt: nil),
    ]

    @Test(arguments: TestStore.names, cases)
    func theInterpretationIsReadAtTheFirstReport(backend name: String, _ testCase: ReadCase) throws {
        let backend = try TestStore(name, schema: Features.all.schema)
        let evaluator = try Bundled.evaluator()
        let registered = Timestamp.parse("2026-11-20T08:00:00Z")!
        let now = registered + 3600
        let ingestor = Features.all.makeIngestor(
            store: backend.store, evaluator: evaluator, policy: IngestPolicy(clock: { now }), cores: 1)
        func event(_ id: String, user: String = "owner", _ type: String, at: Double, _ payload: JSONObject = [:])
            -> JSON
        {
            [
                "event_id": .string(id), "user_id": .string(user), "type": .string(type), "dog_id": "miso",
                "occurred_at": .string(Timestamp.format(at)), "payload": .object(payload),
            ]
        }
        let registration = ingestor.ingest([
            event("reg", "dog_registered", at: registered, JourneyBehaviourTests.registration)
        ])
        #expect(registration[0].status == .accepted, "\(registration[0].json)")
        for report in testCase.reports {
            let result = ingestor.ingest([
                event(report.eventID, user: report.user, "ai_interpretation_read", at: registered + report.minutes * 60)
            ])[0]
            if report.user != "owner" { #expect(result.code == "unknown_dog", "\(result.json)") }
        }
        let expected: JSON = testCase.readAt.map { .string(Timestamp.format(registered + $0 * 60)) } ?? .null
        let views = JourneyViews(store: backend.store, evaluator: evaluator, now: now)
        #expect(try views.today("miso")["interpretation_read_at"] == expected)
        #expect(try views.journey("miso")["interpretation_read_at"] == expected)
    }

    /// Today reads the read time on every view: one probe of the partial index on the read
    /// reports, never a walk over the dog's other events (a dog may have tens of thousands).
    @Test func theReadTimeIsFoundByItsIndexNotByTheDogsEvents() throws {
        let file = TemporaryDatabaseFile()
        let store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        let plan = try store.rows("EXPLAIN QUERY PLAN " + interpretationReadSQL, [.text("q")]) { $0.text(3) ?? "" }
        #expect(plan.contains { $0.contains("USING INDEX events_interpretation_read") }, "plan: \(plan)")
    }
}
