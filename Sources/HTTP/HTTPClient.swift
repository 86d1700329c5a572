#if canImport(Glibc)
    import Glibc
#endif

/// A small blocking HTTP/1.1 client over one keep-alive connection, for the service's own
/// tests, health checks and benchmarks on loopback. It sends exactly the bytes asked for, so
/// tests can also send malformed requests.
public final class HTTPClient {
    public let host: String
    public let port: Int
    private var descriptor: Int32 = -1
    /// Seconds a read or write may block.
    public var timeoutSeconds: Int

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 30) {
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { disconnect() }

    /// A response as received.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request and reads the response; with `retry`, reconnects and sends it once more
    /// when the connection fails (a kept-alive connection the server closed meanwhile).
    public func send(
        _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8]? = nil, retry: Bool = true
    ) throws(SocketError) -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + (body ?? [])
        do {
            return try exchange(bytes)
        } catch {
            disconnect()
            guard retry else { throw error }
            return try exchange(bytes)
        }
    }

    /// Sends raw bytes (which should be one whole request) and reads one response.
    public func exchange(_ bytes: [UInt8]) throws(SocketError) -> Response {
        if descriptor < 0 { try connect() }
        try write(bytes)
        return try readResponse()
    }

    /// Closes the connection.
    public func disconnect() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
        buffer = []
    }

    private var buffer: [UInt8] = []

    private func connect() throws(SocketError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(message: "socket: \(ListeningSocket.errnoText())") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let text = ListeningSocket.errnoText()
            Glibc.close(fd)
            throw SocketError(message: "cannot connect to \(host):\(port): \(text)")
        }
        descriptor = fd
    }

    private func write(_ bytes: [UInt8]) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                // The server may answer (413) and close before reading everything.
                if errno == EPIPE || errno == ECONNRESET { return }
                throw SocketError(message: "send: \(ListeningSocket.errnoText())")
            }
            offset += written
        }
    }

    private func fill() throws(SocketError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw SocketError(message: "recv: \(ListeningSocket.errnoText())") }
            if count == 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    private func readResponse() throws(SocketError) -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        let headerEnd = try position(of: separator, closing: "the connection closed before a response")
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw SocketError(message: "not an HTTP response: \(head.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length {
                if try !fill() { throw SocketError(message: "the connection closed inside a response body") }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = try readChunked()
        }
        if headers["connection"]?.lowercased() == "close" { disconnect() }
        return Response(status: status, headers: headers, body: body)
    }

    private func readChunked() throws(SocketError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try position(of: [13, 10], closing: "the connection closed inside a chunk")
            let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            let size = Int(sizeText.trimmingSpaces, radix: 16) ?? 0
            buffer.removeFirst(lineEnd + 2)
            while buffer.count < size + 2 {
                if try !fill() { throw SocketError(message: "the connection closed inside a chunk") }
            }
            body += buffer[0..<size]
            buffer.removeFirst(size + 2)
            if size == 0 { return body }
        }
    }

    /// Where `separator` starts in the buffer, reading until it arrives; `closing` is the error
    /// when the connection closes first.
    private func position(of separator: [UInt8], closing: String) throws(SocketError) -> Int {
        while true {
            if let end = firstRange(of: separator, in: buffer) { return end }
            guard try fill() else { throw SocketError(message: closing) }
        }
    }

    private func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
