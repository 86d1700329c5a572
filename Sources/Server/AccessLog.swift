import Core
import FeatureKit
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
        worker: String, principal: Principal? = nil
    ) {
        // Built by hand: this runs for every request.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        func field(_ name: String, _ text: String) {
            line.append(contentsOf: name.utf8)
            JSON.writeQuoted(text, to: &line)
        }
        field("{\"ts\":", timestamp())
        field(",\"request_id\":", request.id)
        field(",\"worker\":", worker)
        field(",\"method\":", request.method)
        field(",\"path\":", request.path)
        if let route { field(",\"route\":", route) } else { line.append(contentsOf: ",\"route\":null".utf8) }
        line.append(contentsOf: ",\"status\":\(status),\"ms\":".utf8)
        line.append(contentsOf: JSON.format(number: (seconds * 100_000).rounded() / 100).utf8)
        line.append(contentsOf: ",\"bytes_in\":\(request.body.count),\"bytes_out\":\(bytesOut)".utf8)
        field(",\"revision\":", revision)
        // Who it was for: the token's user, or the service credential's name.
        switch principal {
        case .user(let user)?: field(",\"user\":", user)
        case .service(let name, _)?: field(",\"credential\":", name)
        case nil: break
        }
        line.append(contentsOf: "}\n".utf8)
        lock.lock()
        buffer.append(contentsOf: line)
        let full = buffer.count >= Self.flushThreshold
        lock.unlock()
        if full { flush() }
    }

    /// The time with milliseconds; the part up to the second is formatted once per second.
    /// (Only the request thread calls `record`, so these need no lock.)
    private var second = 0
    private var secondText = ""

    private func timestamp() -> String {
        let now = Date().timeIntervalSince1970
        let whole = Int(now)
        if whole != second {
            second = whole
            secondText = String(Timestamp.format(Double(whole)).dropLast())  // without the Z
        }
        let milliseconds = min(999, Int((now - Double(whole)) * 1000))
        let digits = String(milliseconds)
        return secondText + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
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
