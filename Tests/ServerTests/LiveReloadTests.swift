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

/// Hot reload under load: rule files change 20 times (good, broken, half-written, renamed
/// into place, with a failing test) while requests keep coming; not one request fails, every
/// good change is served and every broken one refused with its diagnostics.
@Suite(.serialized) struct LiveReloadTests {
    static func probe(_ value: Int, expect: Int? = nil, expression: String? = nil) -> String {
        """
        rule: probe
        kind: value
        description: Which version of this file is served.
        expr: '\(expression ?? String(value))'
        tests:
          - name: gives its number
            input: null
            expect: \(expect ?? value)

        """
    }

    /// Requests of three kinds in a loop on their own connection; counts what failed.
    final class Load: @unchecked Sendable {
        // `@unchecked Sendable`: counters are atomics, `failures` is a locked box.
        let stop = Atomic<Bool>(false)
        let requests = Atomic<Int>(0)
        let failures = LockedText()
        let failureCount = Atomic<Int>(0)
        private var threads: [Thread] = []

        func start(port: Int, threads count: Int) {
            for worker in 0..<count {
                let thread = Thread { [self] in
                    let client = HTTPClient(port: port, timeoutSeconds: 30)
                    var n = 0
                    while !stop.load(ordering: .relaxed) {
                        n += 1
                        let outcome: (String, Int, Int)
                        do {
                            switch n % 3 {
                            case 0:
                                outcome = ("today", try client.send("GET", "/v1/dogs/q-123/today").status, 200)
                            case 1:
                                let event: JSON = [
                                    "event_id": .string("load-\(worker)-\(n)"), "user_id": "owner-1",
                                    "type": "weight_saved", "dog_id": "q-123",
                                    "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970 - 1)),
                                    "payload": ["kg": 12.8],
                                ]
                                outcome = ("events", try client.json("POST", "/v1/events", ["events": [event]]).0, 200)
                            default:
                                outcome = (
                                    "probe",
                                    try client.json("POST", "/v1/rules/probe/evaluate", ["input": nil], admin: true).0,
                                    200
                                )
                            }
                        } catch {
                            outcome = ("error \(error)", -1, 200)
                        }
                        requests.add(1, ordering: .relaxed)
                        if outcome.1 != outcome.2 {
                            failureCount.add(1, ordering: .relaxed)
                            failures.append("\(outcome.0): \(outcome.1)\n")
                        }
                    }
                }
                threads.append(thread)
                thread.start()
            }
        }

        /// Stops the threads and waits until each has ended.
        func finish() throws {
            stop.store(true, ordering: .relaxed)
            try waitUntil("the end of the load's threads") { threads.allSatisfy(\.isFinished) }
        }
    }

    /// A rule file emptied while the service runs (an editor truncates before it writes; CI
    /// once caught the moment between the two) is refused: its rules keep being served.
    @Test func anEmptiedRuleFileIsRefusedAndItsRulesStay() throws {
        let service = try LiveService { folder in
            try LiveReloadTests.probe(1).write(toFile: folder + "/Rules/probe.yaml", atomically: false, encoding: .utf8)
        }
        let path = service.folder + "/Rules/probe.yaml"
        let client = service.client()
        func probeValue() -> JSON? {
            (try? client.json("POST", "/v1/rules/probe/evaluate", ["input": nil], admin: true))?.1["outputs"]?[0]
        }
        #expect(probeValue() == 1)
        try "".write(toFile: path, atomically: false, encoding: .utf8)
        try waitUntil("the emptied file refused\n\(service.log)") {
            guard let (_, rules) = try? client.json("GET", "/v1/rules", admin: true) else { return false }
            return rules["last_reload"]?["outcome"] == "refused"
                && rules["last_reload"]?.compactText.contains("Rules/probe.yaml holds nothing") == true
        }
        #expect(probeValue() == 1)
        try LiveReloadTests.probe(2).write(toFile: path, atomically: false, encoding: .utf8)
        try waitUntil("the probe's second version served") { probeValue() == 2 }
        #expect(service.stop() == 0)
    }

    @Test func twentyChangesUnderLoad() throws {
        let service = try LiveService { folder in
            try LiveReloadTests.probe(0).write(toFile: folder + "/Rules/probe.yaml", atomically: false, encoding: .utf8)
        }
        let path = service.folder + "/Rules/probe.yaml"
        let client = service.client()
        let load = Load()
        load.start(port: service.port, threads: 2)
        defer { try? load.finish() }

        func probeValue() -> JSON? {
            (try? client.json("POST", "/v1/rules/probe/evaluate", ["input": nil], admin: true))?.1["outputs"]?[0]
        }
        /// Served once 8 answers in a row (from either worker) give it.
        func served(_ value: Int) throws {
            try waitUntil("change \(value) served\n\(service.log)") {
                (0..<8).allSatisfy { _ in probeValue() == .number(Double(value)) }
            }
        }
        /// Refused once 4 answers in a row (from either worker) report a refusal at `since` or
        /// later whose report contains `text`.
        func refused(containing text: String, since: Date) throws {
            try waitUntil("a refusal containing `\(text)`\n\(service.log)") {
                (0..<4).allSatisfy { _ in
                    guard let (_, rules) = try? client.json("GET", "/v1/rules", admin: true),
                        let report = rules["last_reload"], report["outcome"] == "refused",
                        let at = report["at"]?.stringValue.flatMap(Timestamp.parse)
                    else { return false }
                    return at >= since.timeIntervalSince1970 - 0.001 && report.compactText.contains(text)
                }
            }
        }

        var lastGood = 0
        var delays: [Double] = []
        for change in 1...20 {
            let saved = Date()
            switch change % 5 {
            case 1:  // a good change
                try Self.probe(change).write(toFile: path, atomically: false, encoding: .utf8)
                try served(change)
                delays.append(Date().timeIntervalSince(saved))
                lastGood = change
            case 2:  // jq that does not compile: refused, the last good keeps serving
                try Self.probe(change, expression: "1 +").write(toFile: path, atomically: false, encoding: .utf8)
                try refused(containing: "Rules/probe.yaml:4", since: saved)
                #expect(probeValue() == .number(Double(lastGood)))
            case 3:  // half-written, then finished
                let text = Self.probe(change)
                try String(text.prefix(text.count / 2)).write(toFile: path, atomically: false, encoding: .utf8)
                // Both workers have read it (a refusal since it was saved), and serve what they did.
                try refused(containing: "Rules/probe.yaml", since: saved)
                #expect(probeValue() == .number(Double(lastGood)), "a half-written file is never served")
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                try served(change)
                delays.append(Date().timeIntervalSince(saved))
                lastGood = change
            case 4:  // an editor's save: a temporary file renamed over the old one
                let temporary = service.folder + "/Rules/.probe.yaml.swp"
                try Self.probe(change).write(toFile: temporary, atomically: false, encoding: .utf8)
                #expect(rename(temporary, path) == 0)
                try served(change)
                delays.append(Date().timeIntervalSince(saved))
                lastGood = change
            default:  // it loads, but its own test fails: refused
                try Self.probe(change, expect: -1).write(toFile: path, atomically: false, encoding: .utf8)
                try refused(containing: "failing test", since: saved)
                #expect(probeValue() == .number(Double(lastGood)))
            }
        }
        try load.finish()
        #expect(load.failureCount.load(ordering: .relaxed) == 0, "failed requests:\n\(load.failures.text)")
        #expect(load.requests.load(ordering: .relaxed) > 100)
        let sorted = delays.sorted()
        print(
            "reload under load: \(load.requests.load(ordering: .relaxed)) requests, 0 failed; save → served median \(String(format: "%.2f", sorted[sorted.count / 2])) s, max \(String(format: "%.2f", sorted.last ?? 0)) s"
        )
        // Each worker says what its own last reload did: every one has refused the last change.
        try waitUntil("every worker refused the last change", timeout: .seconds(30)) {
            (0..<4).allSatisfy { _ in
                (try? client.send("GET", "/metrics").text)?.contains("journey_rules_last_reload_successful 0") == true
            }
        }
    }
}
