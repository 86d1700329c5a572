import Core

#if canImport(Glibc)
    import Glibc
#endif

/// Why a socket could not be opened.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The errno value of the call that failed, when one did.
    public var code: Int32?
    public var description: String { message }

    public init(message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }
}

/// A TCP socket bound and listening, owned by whoever opened it (a supervisor shares it with its
/// worker processes, which all accept from it; connections waiting in its backlog survive a
/// worker's restart).
public struct ListeningSocket: Sendable {
    /// The descriptor.
    public let descriptor: Int32
    /// The port bound (useful when 0 asked for any free port).
    public let port: Int
    public let host: String

    /// Adopts an inherited listening descriptor (a worker's view of the supervisor's socket).
    public init(adopting descriptor: Int32, host: String, port: Int) {
        self.descriptor = descriptor
        self.host = host
        self.port = port
    }

    /// Binds `host:port` (IPv4 dotted or IPv6 literal; port 0 picks a free one) and listens,
    /// with a backlog of `backlog` connections waiting to be accepted (the kernel caps it at
    /// `net.core.somaxconn`, 4,096 by default): a connection that finds it full is dropped, and
    /// its client tries again only a second later.
    public init(host: String, port: Int, backlog: Int32 = 4096) throws(SocketError) {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(message: "cannot open a socket: \(Self.errnoText())") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard (0...65535).contains(port) else {
            Glibc.close(fd)
            throw SocketError(message: "port \(port) is out of range (0…65535)")
        }
        var bound: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                Glibc.close(fd)
                throw SocketError(message: "'\(host)' is not an IP address (give one, such as 127.0.0.1 or ::1)")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            guard var address = SocketAddress.ipv4(host, port: port) else {
                Glibc.close(fd)
                throw SocketError(message: "'\(host)' is not an IP address (give one, such as 127.0.0.1 or ::1)")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SocketError(
                message: "cannot listen on \(host):\(port): \(String(cString: strerror(code)))", code: code)
        }
        // Non-blocking: several processes wait on this socket, and only one wins each connection.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.descriptor = fd
        self.host = host
        self.port = Self.boundPort(fd) ?? port
    }

    /// Binds `host:port` as ``init(host:port:backlog:)`` does, but while the port is in use
    /// (the processes of a service that is stopping still hold it) tries again every 50 ms for
    /// up to `wait`, calling `waiting` once when it starts to wait.
    public static func waitingForPort(
        host: String, port: Int, wait: Duration, waiting: () -> Void = {}
    ) throws(SocketError) -> ListeningSocket {
        let deadline = ContinuousClock.now + wait
        var told = false
        while true {
            do {
                return try ListeningSocket(host: host, port: port)
            } catch {
                guard error.code == EADDRINUSE else { throw error }
                guard ContinuousClock.now < deadline else {
                    guard told else { throw error }
                    throw SocketError(
                        message:
                            "\(error.message) (still, after waiting \(DurationText.format(wait)) for it to be released)",
                        code: error.code)
                }
                if !told { waiting() }
                told = true
                usleep(50_000)
            }
        }
    }

    /// Closes the socket (only its owner does this).
    public func close() {
        _ = Glibc.close(descriptor)
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
