import Foundation
import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking loopback socket that sends what a test says, byte by byte if need be.
public final class RawConnection {
    public let descriptor: Int32

    /// Connects to `port` on 127.0.0.1, from the loopback address `source` when given.
    public init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            guard var address = SocketAddress.ipv4(source, port: 0) else {
                throw RawConnectionError(description: "\(source) is not an IPv4 address")
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw RawConnectionError(description: "cannot bind \(source): errno \(errno)") }
        }
        guard var target = SocketAddress.ipv4("127.0.0.1", port: port) else {
            throw RawConnectionError(description: "127.0.0.1 is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw RawConnectionError(description: "cannot connect to port \(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits until the server's end has received everything sent (the send queue holds no byte
    /// it has not acknowledged), so that its next poll sees it.
    public func waitUntilDelivered(timeout: Duration = .seconds(30)) throws {
        try waitUntil("the server receiving what was sent", timeout: timeout) {
            var unacknowledged: Int32 = 0
            return ioctl(descriptor, UInt(TIOCOUTQ), &unacknowledged) == 0 && unacknowledged == 0
        }
    }

    /// Whether the server closed the connection within `seconds` (answers are read and dropped).
    public func isClosedByServer(waiting seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(left, 0) * 1000))
            if ready <= 0 { return false }
            let read = recv(descriptor, &buffer, buffer.count, 0)
            if read <= 0 { return true }
            if left <= 0 { return false }
        }
    }

    /// What the server sent until it closed the connection or 5 s passed, as text.
    public func response() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(5)
        while deadline.timeIntervalSinceNow > 0 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(deadline.timeIntervalSinceNow * 1000)) > 0 else { break }
            let read = recv(descriptor, &buffer, buffer.count, 0)
            if read <= 0 { break }
            received += buffer[0..<read]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

public struct RawConnectionError: Error, CustomStringConvertible {
    public var description: String
}
