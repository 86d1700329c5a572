import Foundation
import HTTP
import TestSupport
import Testing

/// Many slow clients from many addresses, each address under the per-address limit, that
/// reconnect as soon as they are closed: more than a worker holds. The audit's 12,000 from 250
/// addresses against two workers of 4,096 made 4.5% of probes fail. Here the same at a small
/// scale (a worker of 256 connections, 1,000 clients from 25 addresses): a worker holds a
/// bounded number of idle connections and sheds the oldest idle one for each new connection,
/// so it always accepts, and a probe from another address is answered. Nothing is timed.
@Suite(.serialized) struct LiveIdleConnectionTests {
    @Test func reconnectingSlowClientsLeaveEveryProbeAnswered() throws {
        let service = try LiveService(
            workers: 1, arguments: ["--connection-limit", "256", "--access-log", "off"], seed: false)
        defer { service.stop() }
        let slow = SlowClients(port: service.port, count: 1_000, addresses: 25, reconnecting: true, seconds: 60)
        defer { slow.stop() }
        // The slow clients are connected (held by the worker, or waiting in the socket's backlog).
        try waitUntil("900 slow clients connected", timeout: .seconds(20)) {
            slow.connected.load(ordering: .relaxed) >= 900
        }
        let probes = Probes.run(port: service.port, count: 60, interval: 0.1)
        #expect(probes.answered == probes.sent, "\(probes.answered) of \(probes.sent) probes answered")
        // The metrics are read through the same crowd (a read may time out): wait for the count.
        let shed = try waitFor("an idle connection shed (journey_http_connections_shed_total > 0)") {
            let shed = Self.metric(service, "journey_http_connections_shed_total")
            return shed > 0 ? shed : nil
        }
        print(
            "LiveIdleConnectionTests: \(probes.answered) of \(probes.sent) probes answered (p50 \(String(format: "%.1f", probes.percentile(0.5))) ms, p99 \(String(format: "%.1f", probes.percentile(0.99))) ms) among 1,000 reconnecting slow clients (\(slow.reconnects.load(ordering: .relaxed)) reconnects, \(shed) idle connections shed)"
        )
    }

    /// The sum over the workers of `name` in `/metrics` (0 when it cannot be read).
    static func metric(_ service: LiveService, _ name: String) -> Double {
        let text = (try? HTTPClient(port: service.port, timeoutSeconds: 2).send("GET", "/metrics").text) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }
}
