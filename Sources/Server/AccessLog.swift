import Foundation
import HTTP
import JQ
import RuleEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The JSON-lines access log: one line per request with its id, route, status, time and the
/// rule revision that answered it. Lines are buffered and written whole (`O_APPEND`), so the
/// workers' lines never interleave; the worker flushes every 100 ms and at exit.
///
/// `@unchecked Sendable`: `buffer` is guarded by `lock`; `descriptor` never changes.
public final class AccessLog: @unchecked Sendable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private static let flushThreshold = 64 << 10

    /// A log to `destination`: `-` for standard output, else a file opened for appending.
    public init(destination: String) throws(ServiceError) {
        if destination == "-" {
            descriptor = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            let fd = open(destination, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw ServiceError("cannot open the access log \(destination): \(String(cString: strerror(errno)))")
            }
            descriptor = fd
            ownsDescriptor = true
        }
        buffer.reserveCapacity(Self.flushThreshold * 2)
    }

    deinit {
        flush()
        if ownsDescriptor { close(descriptor) }
    }

    func record(
        request: HTTPRequest, route: String?, status: Int, seconds: Double, bytesOut: Int, revision: String,
        worker: String
    ) {
        let line: JSON = [
            "ts": .string(Timestamp.format(Date().timeIntervalSince1970)), "request_id": .string(request.id),
            "worker": .string(worker), "method": .string(request.method), "path": .string(request.path),
            "route": route.map(JSON.string) ?? .null, "status": .number(Double(status)),
            "ms": .number((seconds * 100_000).rounded() / 100), "bytes_in": .number(Double(request.body.count)),
            "bytes_out": .number(Double(bytesOut)), "revision": .string(revision),
        ]
        lock.lock()
        line.appendCompactText(to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        let full = buffer.count >= Self.flushThreshold
        lock.unlock()
        if full { flush() }
    }

    /// Writes what is buffered.
    public func flush() {
        lock.lock()
        defer { lock.unlock() }
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, buffer.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
