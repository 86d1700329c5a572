import Core
import Foundation
import HTTP
import JQ
import RuleEngine
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `journey serve` as users run it: the executable in its own process (supervisor and
/// workers), on a free loopback port, over a temporary copy of the bundled rules.
final class LiveService {
    let directory: TemporaryDirectory
    /// The service's folder: `Rules/`, `Plugins/`, the access log.
    var folder: String { directory.path }
    let process = Process()
    let port: Int
    private let errors = Pipe()
    private let stderrText = LockedText()

    /// Starts the service; `prepare` may change the rules folder first. With `reusing`, it
    /// starts in that folder as it was left (its rules, store and state). `onOutput` sees what
    /// the service writes to stderr while it starts (all of it so far, each time more came).
    init(
        workers: Int = 2, arguments: [String] = [], seed: Bool = true, reusing: TemporaryDirectory? = nil,
        prepare: (String) throws -> Void = { _ in }, onOutput: (String) -> Void = { _ in }
    ) throws {
        directory = try reusing ?? TemporaryDirectory()
        let folder = directory.path
        if reusing == nil {
            try directory.copy(Repository.rules, to: "Rules")
            try directory.copy(Repository.plugins, to: "Plugins")
        }
        try prepare(folder)
        process.executableURL = URL(fileURLWithPath: try BuiltExecutable.path("journey"))
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.arguments =
            [
                "serve", "--port", "0", "--workers", String(workers), "--access-log", folder + "/access.log",
                // A killed test run leaves no service behind.
                "--exit-with-parent",
            ] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_ADMIN_TOKEN"] = ServiceHarness.token
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // The port is announced on stderr once every worker serves. The deadline only guards
        // against a hang: on a loaded 2-core machine a start took over 60 s (load 30).
        let started = Date()
        let deadline = started.addingTimeInterval(300)
        var found: Int?
        let handle = errors.fileHandleForReading
        var buffer = ""
        while found == nil, Date() < deadline, process.isRunning {
            let data = handle.availableData
            if data.isEmpty { break }
            buffer += String(decoding: data, as: UTF8.self)
            onOutput(buffer)
            if let range = buffer.range(of: "listening on http://127.0.0.1:") {
                let digits = buffer[range.upperBound...].prefix { $0.isNumber }
                found = Int(digits)
            }
        }
        stderrText.set(buffer)
        guard let found else {
            let waited = Int(Date().timeIntervalSince(started))
            let state = process.isRunning ? "still starting after \(waited) s" : "exited after \(waited) s"
            process.terminate()
            throw LiveServiceError("journey serve did not start (\(state)): \(buffer)")
        }
        port = found
        // Keep draining stderr so the service never blocks on a full pipe.
        let text = stderrText
        handle.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { text.append(String(decoding: data, as: UTF8.self)) }
        }
        if seed { try self.seed() }
    }

    deinit {
        errors.fileHandleForReading.readabilityHandler = nil
        if exitStatus == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = reap(seconds: 10)
        }
    }

    /// The supervisor's children: its worker processes now.
    var workerPIDs: [Int32] {
        let supervisor = process.processIdentifier
        let children =
            (try? String(contentsOfFile: "/proc/\(supervisor)/task/\(supervisor)/children", encoding: .utf8))
            ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }
    }

    /// What the service wrote to stderr so far.
    var log: String { stderrText.text }

    /// A client that waits up to 120 s for an answer: a publish runs every rule's tests, in a
    /// debug build, on two cores that other tests share (30 s ran out under load).
    func client() -> HTTPClient { HTTPClient(port: port, timeoutSeconds: 120) }

    /// Ingests examples/events.jsonl, moved to recent times (the service uses the real clock).
    func seed() throws {
        let lines = try String(contentsOfFile: Repository.examples + "/events.jsonl", encoding: .utf8)
        let shift = Date().timeIntervalSince1970 - ServiceHarness.now
        let events: [JSON] = try lines.split(separator: "\n").map { line in
            guard case .object(var event) = try JSONParser().parse(String(line)) else { return .null }
            if let text = event["occurred_at"]?.stringValue, let seconds = Timestamp.parse(text) {
                event["occurred_at"] = .string(Timestamp.format(seconds + shift - 3600))
            }
            return .object(event)
        }
        let response = try client().send(
            "POST", "/v1/events", body: Array(JSON.object(["events": .array(events)]).compactText.utf8))
        guard response.status == 200 else { throw LiveServiceError("seeding failed: \(response.text)") }
    }

    /// Stops the service with SIGTERM; its exit code, nil when it did not end within `seconds`.
    @discardableResult
    func stop(seconds: Double = 30) -> Int32? {
        if let exitStatus { return exitStatus }
        kill(process.processIdentifier, SIGTERM)
        return reap(seconds: seconds)
    }

    /// The exit code once the service ended (reaped here: Foundation's own wait can miss it).
    private var exitStatus: Int32?

    private func reap(seconds: Double) -> Int32? {
        try? waitFor("the end of journey serve (pid \(process.processIdentifier))", timeout: .seconds(seconds)) {
            () -> Int32? in
            if let exitStatus { return exitStatus }
            if !process.isRunning {
                exitStatus = process.terminationStatus
                return exitStatus
            }
            var status: Int32 = 0
            if waitpid(process.processIdentifier, &status, WNOHANG) == process.processIdentifier {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            return exitStatus
        }
    }
}

struct LiveServiceError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension HTTPClient {
    /// Sends JSON (with the admin token when `admin`) and parses the answer.
    func json(_ method: String, _ target: String, _ body: JSON? = nil, admin: Bool = false, retry: Bool = true) throws
        -> (Int, JSON)
    {
        var headers: [String: String] = ["Content-Type": "application/json"]
        if admin { headers["Authorization"] = "Bearer \(ServiceHarness.token)" }
        let response = try send(
            method, target, headers: headers, body: body.map { Array($0.compactText.utf8) }, retry: retry)
        return (response.status, (try? JSONParser().parse(response.body)) ?? .null)
    }
}
