import Foundation
import HTTP
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Slow clients (slowloris) against a loopback port, on a thread of their own: `count`
/// connections spread over the addresses 127.0.0.2, 127.0.0.3, … (`addresses` of them), each
/// sending a request's headers one byte a second and never finishing them. With `reconnecting`,
/// a connection the server closes is opened again at once, as an attacker would. Bounded: they
/// stop when told (``stop()``) or after `seconds`, and close every socket.
public final class SlowClients: @unchecked Sendable {
    // `@unchecked Sendable`: the sockets belong to the clients' thread; others read atomics.
    /// Connections opened again after the server closed them.
    public let reconnects = Atomic<Int>(0)
    /// Connections open now (connected or connecting).
    public let open = Atomic<Int>(0)
    /// Connections established now (the server accepted them, or they wait in its backlog).
    public let connected = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    public init(port: Int, count: Int, addresses: Int, reconnecting: Bool, seconds: Double) {
        let thread = Thread { [self] in
            run(port: port, count: count, addresses: addresses, reconnecting: reconnecting, seconds: seconds)
        }
        thread.name = "slow clients"
        thread.start()
    }

    /// Stops the clients and waits until their sockets are closed.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(10_000) }
    }

    deinit { stopped.store(true, ordering: .releasing) }

    private static let prefix = Array(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\nX-Padding: ".utf8)

    private struct Client {
        var socket: Int32 = -1
        var connected = false
        var sent = 0
    }

    private func run(port: Int, count: Int, addresses: Int, reconnecting: Bool, seconds: Double) {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        var clients = (0..<count).map { _ in Client() }
        func connect(_ index: Int) {
            clients[index] = Client()
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0, var source = SocketAddress.ipv4("127.0.0.\(2 + index % addresses)", port: 0),
                var target = SocketAddress.ipv4("127.0.0.1", port: port)
            else {
                if fd >= 0 { close(fd) }
                return
            }
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, connected == 0 || errno == EINPROGRESS else {
                close(fd)
                return
            }
            clients[index].socket = fd
            clients[index].connected = connected == 0
            open.add(1, ordering: .relaxed)
            if connected == 0 { self.connected.add(1, ordering: .relaxed) }
        }
        func drop(_ index: Int) {
            close(clients[index].socket)
            clients[index].socket = -1
            open.subtract(1, ordering: .relaxed)
            if clients[index].connected { connected.subtract(1, ordering: .relaxed) }
        }
        /// Sends the next byte of the headers (the whole request line at first).
        func trickle(_ index: Int) {
            let fd = clients[index].socket
            let bytes: [UInt8] =
                clients[index].sent == 0 ? Self.prefix : [UInt8(ascii: "a")]
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { clients[index].sent += sent } else if errno != EAGAIN { drop(index) }
        }
        for index in 0..<count { connect(index) }
        let deadline = Date().addingTimeInterval(seconds)
        var nextTrickle = Date()
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .acquiring), Date() < deadline {
            let live = clients.indices.filter { clients[$0].socket >= 0 }
            var polled = live.map { index in
                pollfd(
                    fd: clients[index].socket,
                    events: Int16(clients[index].connected ? POLLIN : POLLOUT), revents: 0)
            }
            _ = poll(&polled, nfds_t(polled.count), 50)
            for (slot, index) in live.enumerated() where polled[slot].revents != 0 {
                let events = Int32(polled[slot].revents)
                if !clients[index].connected {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(clients[index].socket, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0, events & Int32(POLLOUT) != 0 {
                        clients[index].connected = true
                        connected.add(1, ordering: .relaxed)
                        trickle(index)
                    } else {
                        drop(index)
                    }
                    continue
                }
                let read = recv(clients[index].socket, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                if read == 0 || (read < 0 && errno != EAGAIN) || events & Int32(POLLHUP | POLLERR) != 0 {
                    drop(index)
                }
            }
            if Date() >= nextTrickle {
                nextTrickle = Date().addingTimeInterval(1)
                for index in clients.indices where clients[index].socket >= 0 && clients[index].connected {
                    trickle(index)
                }
            }
            if reconnecting {
                for index in clients.indices where clients[index].socket < 0 {
                    connect(index)
                    reconnects.add(1, ordering: .relaxed)
                }
            }
        }
        for index in clients.indices where clients[index].socket >= 0 { drop(index) }
        finished.store(true, ordering: .releasing)
    }
}

/// Probes from 127.0.0.1 while something else goes on: a new connection each, `path`, at most
/// `timeout` seconds to answer; what was answered and how fast.
public struct Probes: Sendable {
    public var sent = 0
    public var answered = 0
    /// Milliseconds of each answered probe.
    public var latencies: [Double] = []

    /// `count` probes, one every `interval` seconds.
    public static func run(port: Int, path: String = "/healthz", count: Int, interval: Double, timeout: Int = 2)
        -> Probes
    {
        var probes = Probes()
        for _ in 0..<count {
            let began = Date()
            probes.sent += 1
            let client = HTTPClient(port: port, timeoutSeconds: timeout)
            if let response = try? client.send("GET", path, retry: false), response.status == 200 {
                probes.answered += 1
                probes.latencies.append(Date().timeIntervalSince(began) * 1000)
            }
            client.disconnect()
            let spent = Date().timeIntervalSince(began)
            if spent < interval { usleep(UInt32((interval - spent) * 1_000_000)) }
        }
        return probes
    }

    /// The latency below which `fraction` of the answered probes fall, in ms (0 for none).
    public func percentile(_ fraction: Double) -> Double {
        let sorted = latencies.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
