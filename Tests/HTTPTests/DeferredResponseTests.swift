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

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            lock.withLock { waiting.append(request.path) }
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
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        let batches = Batches()
        let server = try HTTPServer(socket: socket, handler: batches.handle, flush: batches.flush)
        defer { server.stop(grace: .seconds(1)) }
        let port = socket.port
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

    @Test func aDeferralWithNothingToFlushIsAServerError() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        let server = try HTTPServer(socket: socket) { _ in .deferred }
        defer { server.stop(grace: .seconds(1)) }
        let response = try HTTPClient(port: socket.port, timeoutSeconds: 10).send("GET", "/")
        #expect(response.status == 500)
    }
}
