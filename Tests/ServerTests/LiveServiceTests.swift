import Core
import Foundation
import HTTP
import JQ
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `journey serve` in its own processes on loopback: real sockets, real workers.
@Suite(.serialized) struct LiveServiceTests {
    @Test func bindsLoopbackServesAndStopsGracefully() throws {
        // The grace is long so that the request in progress finishes on a loaded machine too
        // (with 10 s it got no answer at load 30: its 800 ms of CPU took longer than that).
        let service = try LiveService(arguments: ["--shutdown-grace", "120s"])
        let client = service.client()
        let (status, health) = try client.json("GET", "/healthz")
        #expect(status == 200 && health["status"] == "ok")
        let (todayStatus, today) = try client.json("GET", "/v1/dogs/q-123/today")
        #expect(todayStatus == 200 && today["dog"]?["name"] == "Q", "\(today)")

        // A request in progress when SIGTERM arrives still gets its answer.
        let port = service.port
        let answer = LockedText()
        let slow = Thread {
            let client = HTTPClient(port: port, timeoutSeconds: 150)
            do {
                let (status, body) = try client.json(
                    "POST", "/v1/eval", ["expr": "def f: f; f", "timeout_ms": 800], admin: true)
                answer.set("\(status) \(body["code"]?.stringValue ?? "")")
            } catch {
                answer.set("no answer: \(error)")
            }
        }
        slow.start()
        // In progress: a worker has started the evaluation's own process.
        try waitUntil("the evaluation process of the request in progress") {
            Self.evaluationProcess(of: service.process.processIdentifier) != nil
        }
        let exit = service.stop(seconds: 150)
        #expect(exit == 0, "\(service.log)")
        #expect(answer.text == "422 timeout", "the request in progress finished: \(answer.text)")
        // Nothing listens any more.
        #expect(throws: (any Error).self) { try HTTPClient(port: port, timeoutSeconds: 2).send("GET", "/healthz") }
        // The access log has a line per request, with its id and the revision that answered.
        let log = try String(contentsOfFile: service.folder + "/access.log", encoding: .utf8)
        let lines = log.split(separator: "\n").compactMap { try? JSONParser().parse(String($0)) }
        #expect(lines.contains { $0["path"] == "/v1/dogs/q-123/today" && $0["status"] == 200 && $0["revision"] != nil })
        #expect(lines.allSatisfy { $0["request_id"]?.stringValue?.isEmpty == false })
    }

    /// A budget is CPU time, also for an ad-hoc evaluation in its own process: one that a busy
    /// machine starves (here: stopped for longer than its budget + 3 s) is not killed as a
    /// runaway (422 evaluation_crashed, which CI once saw), and answers `timeout` once it has
    /// run its budget.
    @Test func aStarvedEvaluationProcessStillTimesOut() throws {
        let service = try LiveService()
        let port = service.port
        let answer = LockedText()
        let done = DispatchSemaphore(value: 0)
        Thread {
            let response = try? HTTPClient(port: port, timeoutSeconds: 60).json(
                "POST", "/v1/eval", ["expr": "last(range(1e12))", "timeout_ms": 300], admin: true)
            answer.set(response.map { "\($0.0) \($0.1["code"]?.stringValue ?? "")" } ?? "no answer")
            done.signal()
        }.start()
        let stopped = try waitFor("the evaluation process") {
            Self.evaluationProcess(of: service.process.processIdentifier)
        }
        kill(stopped, SIGSTOP)
        // Time must pass for the code under test: the process stays stopped for longer than its
        // budget and the 3 s the worker allows beyond it on wall time.
        letTimePass(.milliseconds(4_500), for: "a stopped evaluation to outlast its budget + 3 s of wall time")
        kill(stopped, SIGCONT)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(answer.text == "422 timeout", "\(answer.text)")
        #expect(service.stop() == 0)
    }

    /// The `serve --isolated-eval` process a worker of `supervisor` started, if one runs.
    static func evaluationProcess(of supervisor: pid_t) -> pid_t? {
        func parent(of pid: pid_t) -> pid_t? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 ? pid_t(fields[1]) : nil
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                String(decoding: cmdline, as: UTF8.self).contains("--isolated-eval"),
                let worker = parent(of: pid), parent(of: worker) == supervisor
            else { continue }
            return pid
        }
        return nil
    }

    @Test func badHTTPInputGetsA4xxAndNeverA5xx() throws {
        let service = try LiveService(arguments: ["--max-body", "1MiB"])
        let client = service.client()
        // A 50 MB body.
        let huge = try client.send("POST", "/v1/events", body: [UInt8](repeating: 0x20, count: 50 << 20))
        #expect(huge.status == 413)
        // Malformed JSON, wrong types, deep nesting, invalid UTF-8.
        #expect(try client.send("POST", "/v1/events", body: Array(#"{"events": [1,"#.utf8)).status == 400)
        #expect(try client.json("POST", "/v1/events", ["events": 7]).0 == 422)
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(try client.send("POST", "/v1/events", body: Array(#"{"events": \#(deep)}"#.utf8)).status == 400)
        #expect(
            try client.send("POST", "/v1/events", body: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]).status == 400)
        // Unknown routes and methods, an invalid path, a request line that is not HTTP.
        #expect(try client.send("GET", "/nowhere").status == 404)
        #expect(try client.send("PUT", "/v1/dogs").status == 405)
        #expect(try client.send("GET", "/v1/dogs/%FF/today").status == 400)
        let garbage = try HTTPClient(port: service.port).exchange(Array("NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect((400..<500).contains(garbage.status))
        // Still healthy, and no 5xx was ever answered.
        #expect(try client.json("GET", "/healthz").0 == 200)
        let metrics = try client.send("GET", "/metrics").text
        #expect(!metrics.contains("status=\"500\"") && !metrics.contains("status=\"503\""), "\(metrics)")
    }

    @Test func adminNeedsTheTokenAndChangesNothingWithoutIt() throws {
        let service = try LiveService()
        let client = service.client()
        let (before, rules) = try client.json("GET", "/v1/rules", admin: true)
        #expect(before == 200)
        for token in [nil, "wrong-token-wrong-token"] {
            var headers: [String: String] = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Bearer \(token)" }
            #expect(try client.send("POST", "/v1/rules/reload", headers: headers, body: []).status == 401)
            #expect(try client.send("GET", "/v1/rules", headers: headers).status == 401)
            let eval = try client.send("POST", "/v1/eval", headers: headers, body: Array(#"{"expr": "$ENV"}"#.utf8))
            #expect(eval.status == 401)
        }
        let (_, after) = try client.json("GET", "/v1/rules", admin: true)
        #expect(after["revision"] == rules["revision"])
        #expect(after["last_reload"]?["cause"] == "startup")
        let (_, environment) = try client.json("POST", "/v1/eval", ["expr": "$ENV | length"], admin: true)
        #expect(environment["outputs"] == [0])
    }

    @Test func aChangeThroughOneWorkerShowsInEveryWorkersCachedViews() throws {
        let service = try LiveService()
        let preview = "/v1/dogs/q-123/blocks/breed-traits/preview"
        // Each worker computes and caches the view (connections land on either worker).
        for _ in 0..<6 {
            let (status, view) = try HTTPClient(port: service.port).json("GET", preview)
            #expect(status == 200 && view["in_progress"] == false)
        }
        let (started, _) = try service.client().json(
            "POST", "/v1/dogs/q-123/blocks/breed-traits/start", ["event_id": "start-live"])
        #expect(started == 200)
        for _ in 0..<6 {
            let (_, view) = try HTTPClient(port: service.port).json("GET", preview)
            #expect(view["in_progress"] == true, "a cached view outlived the change: \(view)")
        }
    }
}
