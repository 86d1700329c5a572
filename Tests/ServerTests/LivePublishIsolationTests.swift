import Core
import Foundation
import HTTP
import RevisionStore
import TestSupport
import Testing

/// A revision published to the service whose test cannot be stopped (one C builtin making a
/// string of a billion bytes) or runs out of memory: the gates run the tests in a child
/// process, so the admin gets `422` naming the test, and the worker that took the publish keeps
/// serving its other connections (the audit's publish got no answer and killed the worker).
@Suite(.serialized) struct LivePublishIsolationTests {
    struct HostileTest: Sendable, CustomStringConvertible {
        var name: String
        var expression: String
        var arguments: [String]
        var description: String { name }
    }

    static let cases = [
        HostileTest(
            name: "cannot be stopped", expression: #"("x" * 1000000000 | .[0:1])"#,
            arguments: ["--stuck-grace", "300ms"]),
        HostileTest(
            name: "runs out of memory", expression: #"reduce range(40) as $i ("x"; . + .)"#,
            arguments: ["--worker-memory", "1GiB"]),
    ]

    static func rule(_ expression: String) -> String {
        """
        rule: test.hostile
        kind: event_effects
        events: [hostile_test]
        description: A rule whose test is hostile.
        expr: '(\(expression)) as $x | []'
        tests:
          - name: hostile
            input:
              event: {event_id: e1, user_id: u1, type: hostile_test, occurred_at: "2026-11-23T09:12:00+01:00"}
            expect: []

        """
    }

    @Test(arguments: cases)
    func aHostileTestIsRefusedWithoutTakingTheWorkerDown(_ hostile: HostileTest) throws {
        // The connection held before the publish stays open for as long as the worker lives.
        let service = try LiveService(
            workers: 1, arguments: hostile.arguments + ["--header-timeout", "0", "--connection-timeout", "300s"],
            seed: false)
        defer { service.stop() }
        let bystander = service.client()
        #expect(try bystander.json("GET", "/healthz").0 == 200)
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        files["Rules/test/hostile.yaml"] = Self.rule(hostile.expression)
        let body: JSON = [
            "message": "hostile", "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
        ]
        let started = Date()
        let published = Result {
            // The gates load and test the whole rule set in a child: on a loaded machine that takes
            // well over the usual 30 s client timeout, and the answer is what this test is about.
            try HTTPClient(port: service.port, timeoutSeconds: 240).json(
                "POST", "/v1/rules/revisions", body, admin: true, retry: false)
        }
        guard case .success(let (status, answer)) = published else {
            Issue.record("the publish got no answer: \(published); the service said: \(service.log)")
            return
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(status == 422, "\(answer.compactText.prefix(400))")
        #expect(answer["code"] == "gates_refused")
        let errors = answer["errors"]?.arrayValue ?? []
        let named = errors.first { $0["message"]?.stringValue?.contains("test.hostile › hostile") == true }
        #expect(named != nil, "no error names the test: \(answer.compactText.prefix(600))")
        #expect(named?["location"]?.stringValue?.hasPrefix("Rules/test/hostile.yaml:") == true)
        // The worker that answered lives on: the connection it held before is served again.
        #expect(try bystander.json("GET", "/healthz", retry: false).0 == 200)
        let metrics = try service.client().send("GET", "/metrics").text
        #expect(metrics.contains("journey_worker_restarts_total 0"), "a worker was restarted")
        let (_, revisions) = try service.client().json("GET", "/v1/rules/revisions", admin: true)
        #expect(revisions["revisions"]?.arrayValue?.isEmpty == true, "the refused revision was kept")
        print(
            "LivePublishIsolationTests (\(hostile.name)): 422 in \(String(format: "%.2f", seconds)) s: \(named?["message"]?.stringValue ?? "")"
        )
    }
}
