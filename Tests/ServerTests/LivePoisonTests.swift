import Core
import Foundation
import HTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A revision is poisoned only when its tests crash workers twice in a row, never because a
/// worker was killed from outside while it tested; and a poisoned state never keeps
/// `journey serve` from starting on its last good revision.
@Suite(.serialized) struct LivePoisonTests {
    static func poisoned(_ service: LiveService) -> String {
        (try? String(contentsOfFile: service.folder + "/journey.state/poisoned", encoding: .utf8)) ?? ""
    }

    static func lastGood(_ service: LiveService) throws -> String {
        try String(contentsOfFile: service.folder + "/journey.state/last-good", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func ready(_ service: LiveService) -> Bool {
        (try? service.client().json("GET", "/readyz").0) == 200
    }

    /// Whether a worker's slot says it is loading and testing rules (`/metrics`, answered by
    /// another worker).
    static func testingRules(_ service: LiveService) -> Bool {
        guard let text = try? service.client().send("GET", "/metrics", retry: false).text else { return false }
        return text.split(separator: "\n").contains {
            $0.hasPrefix("journey_worker_testing_rules{") && $0.hasSuffix(" 1")
        }
    }

    /// The audit's reproduction: a worker killed, then its replacement killed while it tests
    /// the rules. Before, the good revision was poisoned, the slot crash-looped (exit 78) and
    /// the next start exited 2.
    @Test func workersKilledWhileTestingDoNotPoisonAGoodRevision() throws {
        let service = try LiveService(workers: 2, seed: false)
        let revision = try Self.lastGood(service)
        // The replacement starts by loading and testing the rules (about a second in a debug
        // build); it is killed once its slot says so. A replacement that was done before the
        // test saw it (a loaded machine is slow to ask) is replaced and watched again.
        var landed = false
        for _ in 0..<5 where !landed {
            let before = Set(service.workerPIDs)
            guard let victim = before.first else { break }
            kill(victim, SIGKILL)
            let replacement = try waitFor("a worker in place of \(victim)") {
                service.workerPIDs.first { !before.contains($0) }
            }
            guard
                (try? waitUntil("worker \(replacement) testing the rules", timeout: .seconds(20)) {
                    Self.testingRules(service)
                }) != nil
            else { continue }
            kill(replacement, SIGKILL)
            landed =
                (try? waitUntil("the supervisor's word on the kill", timeout: .seconds(20)) {
                    service.log.contains("not held against the revision")
                }) != nil
        }
        #expect(landed, "a kill landed while a worker tested the rules: \(service.log)")
        try waitUntil("two workers serving again\n\(service.log)") {
            service.workerPIDs.count == 2 && Self.ready(service)
        }
        #expect(!Self.poisoned(service).contains(revision), "\(Self.poisoned(service))")
        let metrics = try service.client().send("GET", "/metrics").text
        #expect(metrics.contains("journey_worker_restart_backoff_seconds{worker=\"w0\"}"), "\(metrics.suffix(600))")
        let families = metrics.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }
        #expect(families.count == Set(families).count, "each family is described once")
        #expect(service.stop() == 0)
        let again = try LiveService(workers: 2, seed: false, reusing: service.directory)
        defer { again.stop() }
        #expect(Self.ready(again), "the next start serves: \(again.log)")
    }

    /// A poisoned state an earlier run left (naming the good revision) does not stop the next
    /// start: the last good revision is served, and passing its tests takes it off the list.
    @Test func aPoisonedStateNeverStopsTheNextStart() throws {
        let first = try LiveService(workers: 1, seed: false)
        let revision = try Self.lastGood(first)
        #expect(first.stop() == 0)
        try (revision + "\n").write(
            toFile: first.folder + "/journey.state/poisoned", atomically: true, encoding: .utf8)
        let second = try LiveService(workers: 2, seed: false, reusing: first.directory)
        defer { second.stop() }
        #expect(Self.ready(second), "\(second.log)")
        #expect(!Self.poisoned(second).contains(revision), "\(Self.poisoned(second))")
    }

    /// A revision whose test really crashes workers (libjq aborts out of memory) is poisoned at
    /// the second crash in a row; the workers come back on the last good revision. The rule
    /// asks for a 3 GB array in one allocation, so libjq aborts at once: a rule that grew its
    /// memory step by step could run past the reload's 1 s test budget on a loaded machine and
    /// fail as a test instead of crashing (CI saw that).
    @Test func aRevisionWhoseTestsCrashTwiceInARowIsPoisoned() throws {
        let service = try LiveService(workers: 2, arguments: ["--worker-memory", "1GiB"], seed: false)
        defer { service.stop() }
        let good = try Self.lastGood(service)
        let rule = """
            rule: test.crashing
            kind: event_effects
            events: [crash_test]
            expr: '[] | .[200000000] = 1 | length as $n | []'
            tests:
              - name: runs out of memory
                input: {event: {type: crash_test, payload: {}}, dog: null}
                expect: []
            """
        try rule.write(toFile: service.folder + "/Rules/crashing.yaml", atomically: true, encoding: .utf8)
        try waitUntil("the revision set aside\n\(service.log)") {
            service.log.contains("times in a row; that revision will not be tried again")
        }
        try waitUntil("two workers serving again\n\(service.log)") {
            service.workerPIDs.count == 2 && Self.ready(service)
        }
        #expect(try Self.lastGood(service) == good)
        #expect(Self.poisoned(service).split(separator: "\n").count == 1)
    }
}
