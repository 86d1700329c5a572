import Core
import Foundation
import HTTP
import JQ
import RuleEngine
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Rules that run away inside the live service: a loop is halted at its budget, an evaluation
/// stuck in one C builtin or out of memory ends its worker, which the supervisor restarts; the
/// rule is quarantined and answers with its fallback until it changes, and the service keeps
/// answering everyone else.
@Suite(.serialized) struct LiveRunawayTests {
    static let rules = """
        rules:
          - rule: test.spin
            kind: event_effects
            description: Loops forever on spin_test events.
            events: [spin_test]
            expr: 'def f: f; f'
            fallback: '[]'
            budget: 100ms
          - rule: test.stuck
            kind: event_effects
            description: One C builtin that runs for seconds (a 2 GB string, a byte at a time).
            events: [stuck_test]
            expr: '("x" * 2000000000 | length) as $n | []'
            fallback: '[]'
            budget: 100ms
          - rule: test.greedy
            kind: event_effects
            description: Doubles a string until memory runs out.
            events: [greedy_test]
            expr: 'reduce range(40) as $i ("x"; . + .) | length as $n | []'
            fallback: '[]'
            budget: 10s

        """

    static func event(_ type: String, _ id: String) -> JSON {
        [
            "events": [
                [
                    "event_id": .string(id), "user_id": "owner-9", "type": .string(type),
                    "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970 - 1)),
                ]
            ]
        ]
    }

    /// Requests from another thread while rules run away: none may fail (a request cut by a
    /// dying worker is sent again, as HTTP clients do for idempotent requests).
    final class Bystander: @unchecked Sendable {
        // `@unchecked Sendable`: atomics and a locked box.
        let stop = Atomic<Bool>(false)
        let answered = Atomic<Int>(0)
        let failures = LockedText()
        let failed = Atomic<Int>(0)
        private var thread: Thread?

        init(port: Int) {
            let thread = Thread { [self] in
                let client = HTTPClient(port: port, timeoutSeconds: 30)
                while !stop.load(ordering: .relaxed) {
                    let status = (try? client.send("GET", "/v1/dogs/q-123/today").status) ?? -1
                    if status == 200 {
                        answered.add(1, ordering: .relaxed)
                    } else {
                        failed.add(1, ordering: .relaxed)
                        failures.append("today: \(status)\n")
                    }
                }
            }
            self.thread = thread
            thread.start()
        }

        /// Stops the requests and waits until the last one was answered.
        func finish() throws {
            stop.store(true, ordering: .relaxed)
            try waitUntil("the bystander's last request") { thread?.isFinished ?? true }
        }
    }

    func quarantined(_ client: HTTPClient) throws -> [String: String] {
        let (_, rules) = try client.json("GET", "/v1/rules", admin: true)
        var reasons: [String: String] = [:]
        for record in rules["quarantined"]?.arrayValue ?? [] {
            reasons[record["rule"]?.stringValue ?? ""] = record["reason"]?.stringValue
        }
        return reasons
    }

    func restarts(_ client: HTTPClient) throws -> Int {
        let metrics = try client.send("GET", "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("journey_worker_restarts_total ") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    @Test func loopsAreHaltedAndStuckEvaluationsEndTheirWorker() throws {
        let service = try LiveService(arguments: ["--stuck-grace", "300ms"]) { folder in
            try LiveRunawayTests.rules.write(toFile: folder + "/Rules/runaway.yaml", atomically: false, encoding: .utf8)
        }
        let client = service.client()
        let bystander = Bystander(port: service.port)
        defer { bystander.stop.store(true, ordering: .relaxed) }

        // A loop: halted at its 100 ms budget, the event refused (nothing stored), the rule
        // quarantined; the next event gets the fallback. No worker ends.
        let (status, first) = try client.json("POST", "/v1/events", Self.event("spin_test", "spin-1"))
        #expect(status == 200)
        #expect(first["results"]?[0]?["status"] == "rejected", "\(first)")
        #expect(first["results"]?[0]?["message"]?.stringValue?.contains("budget of 100ms") == true, "\(first)")
        try waitUntil("test.spin quarantined for its timeout") { (try? quarantined(client))?["test.spin"] == "timeout" }
        let (_, second) = try client.json("POST", "/v1/events", Self.event("spin_test", "spin-2"))
        #expect(second["results"]?[0]?["status"] == "accepted", "the fallback answers: \(second)")
        #expect(try restarts(client) == 0)

        // Stuck in one C builtin: halting cannot stop it, so its worker ends; the supervisor
        // restarts it and quarantines the rule.
        #expect(throws: (any Error).self) {
            try client.json("POST", "/v1/events", Self.event("stuck_test", "stuck-1"), retry: false)
        }
        try waitUntil("a worker restarted\n\(service.log)") { (try? restarts(client)) == 1 }
        try waitUntil("test.stuck quarantined\n\(service.log)") { (try? quarantined(client))?["test.stuck"] == "stuck" }
        let (_, after) = try client.json("POST", "/v1/events", Self.event("stuck_test", "stuck-2"))
        #expect(after["results"]?[0]?["status"] == "accepted", "the fallback answers: \(after)")
        try waitUntil("ready again") { (try? client.json("GET", "/readyz").0) == 200 }

        // Until the rule changes: a fixed rule is no longer quarantined.
        let fixed = Self.rules.replacingOccurrences(
            of: #"expr: '("x" * 2000000000 | length) as $n | []'"#, with: "expr: '[]'")
        try fixed.write(toFile: service.folder + "/Rules/runaway.yaml", atomically: false, encoding: .utf8)
        try waitUntil("the fixed rule out of quarantine") { (try? quarantined(client))?["test.stuck"] == nil }
        let listed = try client.json("GET", "/v1/rules", admin: true).1["quarantined"] ?? .null
        #expect(
            try quarantined(client)["test.spin"] == "timeout",
            "an unchanged rule stays quarantined: \(listed)\n\(service.log)")

        try bystander.finish()
        #expect(bystander.failed.load(ordering: .relaxed) == 0, "\(bystander.failures.text)")
        #expect(bystander.answered.load(ordering: .relaxed) > 20)
        #expect(service.log.contains("quarantined the rule"), "\(service.log)")
    }

    @Test func runningOutOfMemoryEndsOnlyItsWorker() throws {
        let service = try LiveService(arguments: ["--worker-memory", "1GiB", "--stuck-grace", "30s"]) { folder in
            try LiveRunawayTests.rules.write(toFile: folder + "/Rules/runaway.yaml", atomically: false, encoding: .utf8)
        }
        let client = service.client()
        #expect(throws: (any Error).self) {
            try client.json("POST", "/v1/events", Self.event("greedy_test", "greedy-1"), retry: false)
        }
        try waitUntil("a worker restarted\n\(service.log)") { (try? restarts(client)) == 1 }
        try waitUntil("test.greedy quarantined\n\(service.log)") {
            (try? quarantined(client))?["test.greedy"] == "crashed"
        }
        let (_, after) = try client.json("POST", "/v1/events", Self.event("greedy_test", "greedy-2"))
        #expect(after["results"]?[0]?["status"] == "accepted", "the fallback answers: \(after)")
        #expect(try client.json("GET", "/v1/dogs/q-123/today").0 == 200)
    }
}
