import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// `journey serve` under slow connections (slowloris) from one address: the per-address limit
/// closes those over it at once, the header deadline the rest, and `/healthz` from another
/// address is answered throughout. `journey-bench slow` measures the same with 5,000
/// connections; here nothing is timed.
@Suite struct LiveSlowConnectionTests {
    /// 2,100 connections: the audit's count, which answered 0 of 12 probes over 40 s before.
    @Test func slowConnectionsLeaveTheHealthProbeAnswered() throws {
        let service = try LiveService(
            workers: 2, arguments: ["--connections-per-address", "8", "--header-timeout", "2s"], seed: false)
        defer { service.stop() }
        let slow = try (0..<2_100).map { _ in try RawConnection(port: service.port, from: "127.0.0.2") }
        for connection in slow { connection.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)) }
        var answered = 0
        for _ in 0..<10 {
            let probe = HTTPClient(port: service.port, timeoutSeconds: 5)
            if (try? probe.send("GET", "/healthz", retry: false))?.status == 200 { answered += 1 }
            probe.disconnect()
            // A byte more on each slow connection between two probes: headers that never end.
            for connection in slow { connection.send([UInt8(ascii: "a")]) }
        }
        #expect(answered == 10, "every probe answered")
        // Past the header deadline, every slow connection is closed.
        try waitUntil("every slow connection closed past the header deadline") {
            slow.allSatisfy { $0.isClosedByServer(waiting: 0) }
        }
        // The workers count what their deadlines shut down: those held within the limit, 8 a
        // worker that accepted any (which worker accepts a connection is the kernel's choice,
        // and on a busy machine one worker may take them all).
        try waitUntil("journey_http_connections_past_deadline_total ≥ 8") {
            let text = (try? service.client().send("GET", "/metrics").text) ?? ""
            let total = text.split(separator: "\n").filter {
                $0.hasPrefix("journey_http_connections_past_deadline_total{")
            }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            return total >= 8
        }
        // Ambiguous framing is refused by the service too.
        let smuggled = try RawConnection(port: service.port)
        smuggled.send(
            Array(
                "POST /v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"
                    .utf8))
        #expect(smuggled.response().hasPrefix("HTTP/1.1 400"))
    }
}
