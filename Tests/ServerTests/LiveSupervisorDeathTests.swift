import Core
import Foundation
import HTTP
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The supervisor killed with SIGKILL, as a process manager sees a crash: its workers die with
/// it at once, and a `journey serve` started again right away on the same port serves (the
/// audit's restart 1.1 s after such a kill exited "Address already in use" while the orphaned
/// workers kept the socket for 1.25–2.33 s).
@Suite(.serialized) struct LiveSupervisorDeathTests {
    @Test func aRestartRightAfterTheSupervisorIsKilledServes() throws {
        let first = try LiveService(workers: 2, seed: false)
        let port = first.port
        let workers = first.workerPIDs
        try #require(workers.count == 2)
        let load = ClientLoad(port: port, clients: 3)
        try waitUntil("the load answered 20 requests", timeout: .seconds(20)) { load.answered >= 20 }
        // The workers are busy reloading changed rules (about a second of compiling and tests)
        // when their supervisor dies: they cannot answer a polite SIGTERM before that is done.
        let rule = first.folder + "/Rules/wording.yaml"
        let text = try String(contentsOfFile: rule, encoding: .utf8)
        try (text + "\n# changed just before the supervisor dies\n").write(
            toFile: rule, atomically: true, encoding: .utf8)
        for worker in workers { kill(worker, SIGHUP) }
        kill(first.process.processIdentifier, SIGKILL)
        let killedAt = Date()

        let second = try LiveService(
            workers: 2, arguments: ["--port", String(port)], seed: false, reusing: first.directory)
        defer { second.stop() }
        let readyAfter = Date().timeIntervalSince(killedAt)
        let orphans = workers.filter(Self.isAlive)
        #expect(orphans.isEmpty, "workers \(orphans) of the killed supervisor outlived it until the restart served")
        try waitUntil("the killed supervisor's workers gone", timeout: .seconds(10)) {
            !workers.contains(where: Self.isAlive)
        }
        let (status, _) = try second.client().json("GET", "/healthz")
        #expect(status == 200)
        let before = load.answered
        try waitUntil("the load served again", timeout: .seconds(20)) { load.answered >= before + 20 }
        load.stop()
        print(
            "LiveSupervisorDeathTests: the restarted service was ready \(String(format: "%.2f", readyAfter)) s after the kill (\(second.log.contains("waiting for") ? "after waiting for the port" : "the port was free at once")); \(load.answered) requests answered, \(load.unanswered) not (cut by the kill or sent while down)"
        )
    }

    /// A new service whose port is still held (an earlier service's processes stopping) waits
    /// for it, saying so, instead of exiting at once.
    @Test func aServeWaitsForItsPortToBeReleased() throws {
        let holder = try ListeningSocket(host: "127.0.0.1", port: 0)
        let port = holder.port
        let released = Mutex(false)
        let service = Thread {
            // Released once the new service said it waits (or after 10 s at most).
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !released.withLock({ $0 }) { usleep(20_000) }
            holder.close()
        }
        service.start()
        let started = try LiveService(
            workers: 1, arguments: ["--port", String(port)], seed: false,
            onOutput: { text in
                if text.contains("waiting for 127.0.0.1:\(port)") { released.withLock { $0 = true } }
            })
        defer { started.stop() }
        #expect(started.port == port)
        #expect(started.log.contains("waiting for 127.0.0.1:\(port)"), "\(started.log)")
        let (status, _) = try started.client().json("GET", "/healthz")
        #expect(status == 200)
    }

    /// Whether `pid` is a live process (a zombie is not).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        guard let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].dropFirst(2).hasPrefix("Z")
    }
}

/// Clients that send requests without pause (a health probe and an event each time) until
/// stopped, counting what was answered.
final class ClientLoad: Sendable {
    private let counts = Mutex((answered: 0, unanswered: 0))
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Int>(0)
    private let clients: Int

    init(port: Int, clients: Int) {
        self.clients = clients
        for client in 0..<clients {
            Thread.detachNewThread { [self] in
                var sent = 0
                while !stopped.load(ordering: .acquiring) {
                    sent += 1
                    let http = HTTPClient(port: port, timeoutSeconds: 5)
                    let event: JSON = [
                        "event_id": .string("load-\(client)-\(sent)"), "user_id": .string("load-\(client)"),
                        "type": "app_opened", "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970)),
                        "payload": [:],
                    ]
                    let answered =
                        (try? http.json("POST", "/v1/events", ["events": [event]], retry: false).0) == 200
                    counts.withLock {
                        if answered { $0.answered += 1 } else { $0.unanswered += 1 }
                    }
                    http.disconnect()
                    if !answered { usleep(10_000) }
                }
                finished.add(1, ordering: .releasing)
            }
        }
    }

    var answered: Int { counts.withLock { $0.answered } }
    var unanswered: Int { counts.withLock { $0.unanswered } }

    /// Stops the clients (waits for them, at most 30 s).
    func stop() {
        stopped.store(true, ordering: .releasing)
        try? waitUntil("every client stopped", timeout: .seconds(30)) { finished.load(ordering: .acquiring) == clients }
    }

    deinit { stopped.store(true, ordering: .releasing) }
}
