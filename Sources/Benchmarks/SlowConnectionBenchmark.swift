import Foundation
import HTTP
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Slow connections (slowloris) against `journey serve`, on loopback: `--connections` connections
/// from 127.0.0.2 each send one byte of a request's headers every 5 s, while `/healthz` is
/// probed from 127.0.0.1 every 100 ms (each probe a new connection, 2 s to answer) for
/// `--seconds`. Run three times in one process: with the connection guards off (the earlier
/// behaviour), with `journey serve`'s defaults, and with the defaults against the same
/// connections spread over 100 addresses (127.0.0.2 to 127.0.0.101), under the per-address
/// limit, so that only the header deadline and the connection limit hold them off. Then the
/// audit's reconnecting attack (issue 46): 12,000 connections from 250 addresses (48 each),
/// each opened again as soon as it is closed, for 40 s, with the idle bound off (as before)
/// and on (the defaults).
struct SlowConnectionBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// What one run saw.
    struct Outcome {
        var opened = 0
        var heldAtEnd = 0
        var probes = 0
        var answered = 0
        var latencies: [Double] = []
    }

    /// The flags that turn the guards off: the earlier defaults.
    static let guardsOff = [
        "--connections-per-address", "0", "--header-timeout", "0", "--connection-limit", "1024",
        "--idle-connection-limit", "0",
    ]

    func run() throws {
        raiseDescriptorLimit()
        let setup = try ServiceBenchmarkSetup(name: "slow", rulesDirectory: options.rulesDirectory)
        defer { setup.remove() }
        let count = options.connections == 32 ? 5_000 : options.connections
        let seconds = options.seconds == 5 ? 20 : options.seconds
        print(
            "journey-bench slow: \(count) connections sending a header byte every 5 s, /healthz probed from 127.0.0.1 every 100 ms for \(seconds) s; \(options.workers) workers"
        )
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        print("open files (ulimit -n) of this process: \(limit.rlim_cur)\n")
        var rows: [[String]] = []
        let variants: [(String, [String], Int)] = [
            ("guards off (earlier), 1 address", Self.guardsOff, 1), ("defaults, 1 address", [], 1),
            ("defaults, 100 addresses", [], 100),
        ]
        for (label, extra, addresses) in variants {
            let service = try HTTPBenchmark.Service(
                journey: setup.journey, folder: setup.folder, name: "run\(rows.count)",
                workers: options.workers, extra: ["--no-watch", "--access-log", "off"] + extra, seed: false)
            usleep(300_000)
            let outcome = attack(
                port: service.port, connections: count, addresses: addresses, seconds: Double(seconds))
            service.stop()
            let sorted = outcome.latencies.sorted()
            func percentile(_ p: Double) -> String {
                sorted.isEmpty
                    ? "–" : String(format: "%.1f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
            }
            rows.append([
                label, "\(outcome.opened)", "\(outcome.heldAtEnd)", "\(outcome.answered)/\(outcome.probes)",
                percentile(0.5), percentile(0.99), sorted.last.map { String(format: "%.1f", $0) } ?? "–",
            ])
            usleep(500_000)
        }
        for (label, extra) in [
            ("reconnecting, 250 addresses, no idle bound (earlier)", ["--idle-connection-limit", "0"]),
            ("reconnecting, 250 addresses, defaults", []),
        ] {
            let service = try HTTPBenchmark.Service(
                journey: setup.journey, folder: setup.folder, name: "run\(rows.count)",
                workers: options.workers, extra: ["--no-watch", "--access-log", "off"] + extra, seed: false)
            let clients = SlowClients(
                port: service.port, count: 12_000, addresses: 250, reconnecting: true, seconds: 120)
            let settled = Date().addingTimeInterval(10)
            while clients.connected.load(ordering: .relaxed) < 11_000, Date() < settled { usleep(50_000) }
            let opened = clients.connected.load(ordering: .relaxed)
            let probes = Probes.run(port: service.port, count: 10 * 40, interval: 0.1)
            let held = clients.connected.load(ordering: .relaxed)
            let reconnects = clients.reconnects.load(ordering: .relaxed)
            clients.stop()
            service.stop()
            rows.append([
                label + " (\(reconnects) reconnects)", "\(opened)", "\(held)", "\(probes.answered)/\(probes.sent)",
                String(format: "%.1f", probes.percentile(0.5)), String(format: "%.1f", probes.percentile(0.99)),
                probes.latencies.max().map { String(format: "%.1f", $0) } ?? "–",
            ])
            usleep(500_000)
        }
        print(
            table(
                header: ["", "connected", "held at end", "probes answered", "p50 ms", "p99 ms", "max ms"],
                rows: rows))
    }

    /// Opens the slow connections, probes while they trickle, closes them.
    func attack(port: Int, connections: Int, addresses: Int, seconds: Double) -> Outcome {
        var outcome = Outcome()
        var sockets: [Int32] = []
        for index in 0..<connections {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            guard var source = SocketAddress.ipv4("127.0.0.\(2 + index % addresses)", port: 0),
                var target = SocketAddress.ipv4("127.0.0.1", port: port)
            else { break }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound != 0 || (connected != 0 && errno != EINPROGRESS) {
                close(fd)
                continue
            }
            sockets.append(fd)
        }
        usleep(500_000)
        let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\nX-Padding: ".utf8)
        var sent = 0
        var open = Array(repeating: true, count: sockets.count)
        func trickle() {
            let byte = request[min(sent, request.count - 1)]
            for (index, fd) in sockets.enumerated() where open[index] {
                var value = byte
                if send(fd, &value, 1, Int32(MSG_NOSIGNAL)) != 1, errno != EAGAIN { open[index] = false }
                var scratch: UInt8 = 0
                let read = recv(fd, &scratch, 1, Int32(MSG_DONTWAIT))
                if read == 0 || (read < 0 && errno != EAGAIN) { open[index] = false }
            }
            sent += 1
        }
        trickle()
        outcome.opened = open.filter { $0 }.count
        let start = Date()
        var nextTrickle = 5.0
        while Date().timeIntervalSince(start) < seconds {
            let began = Date()
            outcome.probes += 1
            let client = HTTPClient(port: port, timeoutSeconds: 2)
            if let response = try? client.send("GET", "/healthz", retry: false), response.status == 200 {
                outcome.answered += 1
                outcome.latencies.append(Date().timeIntervalSince(began) * 1000)
            }
            client.disconnect()
            if Date().timeIntervalSince(start) >= nextTrickle {
                trickle()
                nextTrickle += 5
            }
            let spent = Date().timeIntervalSince(began)
            if spent < 0.1 { usleep(UInt32((0.1 - spent) * 1_000_000)) }
        }
        trickle()
        outcome.heldAtEnd = open.filter { $0 }.count
        for fd in sockets { close(fd) }
        return outcome
    }

    /// Up to the hard limit: every slow connection is a descriptor here.
    func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}
