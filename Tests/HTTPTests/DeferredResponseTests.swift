import Core
import Foundation
import HTTP
import Synchronization
import TestSupport
import Testing

/// Deferred answers: the handler defers, the flush answers every deferred request at once, each
/// with its own answer, on the polling thread; a deferral with no flush is an error.
@Suite struct DeferredResponseTests {
    /// What the handler and the flush share (both run on the polling thread; the lock is for
    /// the test's reads).
    final class Batches: @unchecked Sendable {
        let lock = NSLock()
        var waiting: [String] = []
        var flushes: [[String]] = []
        /// Run on the polling thread when `/lead` is deferred, before its flush.
        var whenLeading: () -> Void = {}

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if request.path == "/big" { return .text(String(repeating: "x", count: 32 << 20)) }
            lock.withLock { waiting.append(request.path) }
            if request.path == "/lead" { whenLeading() }
            return .deferred
        }

        func flush() -> [HTTPResponse] {
            let batch = lock.withLock {
                defer { waiting = [] }
                flushes.append(waiting)
                return waiting
            }
            return batch.map { .json(["path": .string($0), "batch": .number(Double(batch.count))]) }
        }
    }

    @Test func concurrentDeferredRequestsAreAnsweredTogetherEachWithItsOwnAnswer() throws {
        let batches = Batches()
        try withServer(batches) { _, port in
            let answers = Mutex<[Int: JSON]>([:])
            // Rounds of 16 requests sent at once, until two of them met in one flush.
            var rounds = 0
            while rounds < 20, !batches.lock.withLock({ batches.flushes.contains { $0.count > 1 } }) {
                rounds += 1
                let ready = Atomic<Int>(0)
                let done = DispatchGroup()
                for index in 0..<16 {
                    done.enter()
                    let number = rounds * 100 + index
                    Thread.detachNewThread {
                        defer { done.leave() }
                        let client = HTTPClient(port: port, timeoutSeconds: 10)
                        ready.add(1, ordering: .acquiringAndReleasing)
                        while ready.load(ordering: .acquiring) < 16 { sched_yield() }
                        guard let response = try? client.send("GET", "/r/\(number)") else { return }
                        answers.withLock { $0[number] = try? JSONParser().parse(response.body) }
                    }
                }
                done.wait()
            }
            let flushes = batches.lock.withLock { batches.flushes }
            #expect(flushes.contains { $0.count > 1 }, "no flush answered two requests in \(rounds) rounds")
            #expect(flushes.map(\.count).reduce(0, +) == rounds * 16)
            let answered = answers.withLock { $0 }
            #expect(answered.count == rounds * 16)
            for (number, answer) in answered { #expect(answer["path"] == .string("/r/\(number)")) }
        }
    }

    /// Runs `test` with a server whose handler and flush are `batches`', and its port.
    private func withServer(
        _ batches: Batches, options: HTTPServer.Options = HTTPServer.Options(), _ test: (HTTPServer, Int) throws -> Void
    ) throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        let server = try HTTPServer(socket: socket, options: options, handler: batches.handle, flush: batches.flush)
        defer { server.stop(grace: .seconds(1)) }
        try test(server, socket.port)
    }

    static let gatherings: [(String, Int, [[String]])] = [
        ("the default", HTTPServer.Options().gatherBytes, [["/lead", "/late"]]),
        ("a group already as large as gatherBytes", 0, [["/lead"], ["/late"]]),
    ]

    /// A request whose body is still arriving when the leader is deferred joins its group: the
    /// leader goes round the loop again while a request is in progress, unless its group's
    /// bodies already reach `gatherBytes`. (Before, the leader came back after one round and
    /// was flushed alone.)
    @Test(arguments: gatherings)
    func aRequestStillBeingReadJoinsTheLeadersGroup(_ name: String, _ gatherBytes: Int, _ flushes: [[String]]) throws {
        let batches = Batches()
        var options = HTTPServer.Options()
        options.gatherBytes = gatherBytes
        try withServer(batches, options: options) { server, port in
            let late = try RawConnection(port: port)
            let body = Array(repeating: UInt8(ascii: "b"), count: 1000)
            let head = "POST /late HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
            late.send(Array(head.utf8) + body[..<10])
            try waitUntil("the server reading the late request", timeout: .seconds(30)) { server.activeRequests == 1 }
            batches.whenLeading = {
                late.send(Array(body[10...]))
                try? late.waitUntilDelivered()
            }
            let answer = try HTTPClient(port: port, timeoutSeconds: 30).send("GET", "/lead")
            #expect(answer.status == 200)
            #expect(late.response().contains("\"batch\":\(flushes.last?.count ?? 0)"), "\(name)")
            #expect(batches.lock.withLock { batches.flushes } == flushes, "\(name)")
        }
    }

    static let stalledClients: [(String, String)] = [
        ("a body that stops halfway", "POST /stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nhalf"),
        ("an answer it does not read", "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"),
    ]

    /// A client that stalls with its request in progress holds no other request: the leader
    /// goes round the loop at most ``HTTPServer/maxGatherPasses`` times, then flushes.
    @Test(arguments: stalledClients)
    func aStalledClientHoldsNoFlush(_ name: String, _ start: String) throws {
        let batches = Batches()
        try withServer(batches) { server, port in
            let stalled = try RawConnection(port: port)
            stalled.send(Array(start.utf8))
            try waitUntil("the server holding \(name)", timeout: .seconds(30)) { server.activeRequests == 1 }
            let answer = try HTTPClient(port: port, timeoutSeconds: 30).send("GET", "/alone")
            #expect(answer.status == 200, "\(name)")
            #expect(batches.lock.withLock { batches.flushes } == [["/alone"]], "\(name)")
            try waitUntil("\(name) alone in progress", timeout: .seconds(30)) { server.activeRequests == 1 }
        }
    }

    @Test func aDeferralWithNothingToFlushIsAServerError() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        let server = try HTTPServer(socket: socket) { _ in .deferred }
        defer { server.stop(grace: .seconds(1)) }
        let response = try HTTPClient(port: socket.port, timeoutSeconds: 10).send("GET", "/")
        #expect(response.status == 500)
    }
}
