import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of a test's own (`scripts/postgres`: a temporary folder, a free
/// loopback port), for tests that restart it; stopped and removed when released.
public final class ThrowawayPostgres: @unchecked Sendable {
    private let folder: TemporaryDirectory
    /// `postgresql://postgres@127.0.0.1:PORT/postgres`.
    public let url: String

    public init() throws {
        folder = try TemporaryDirectory()
        // The server runs as the `postgres` user when the tests run as root: it must reach the folder.
        chmod(folder.path, 0o755)
        url = try Self.script("start", folder.path + "/server").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        _ = try? Self.script("stop", folder.path + "/server")
    }

    /// Stops the server and starts it again on the same port: every connection is dropped.
    public func restart() throws {
        _ = try Self.script("restart", folder.path + "/server")
    }

    private static func script(_ command: String, _ directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repository.root + "/scripts/postgres")
        process.arguments = [command, directory]
        // Files, not pipes: the server started inherits the script's descriptors and keeps
        // them open, so reading a pipe to its end would wait for the server to stop.
        let output = try TemporaryDirectory()
        FileManager.default.createFile(atPath: output.file("out"), contents: nil)
        FileManager.default.createFile(atPath: output.file("err"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output.file("out"))
        process.standardError = FileHandle(forWritingAtPath: output.file("err"))
        try process.run()
        let status = process.waitForExit()
        let text = (try? String(contentsOfFile: output.file("out"), encoding: .utf8)) ?? ""
        let problems = (try? String(contentsOfFile: output.file("err"), encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ThrowawayPostgresError(description: "scripts/postgres \(command) failed: \(problems)")
        }
        return text
    }
}

struct ThrowawayPostgresError: Error, CustomStringConvertible {
    var description: String
}

extension Process {
    /// Waits until the process ended, reaping it here (Foundation's own wait can miss the exit
    /// of a script whose children outlive it); its exit status.
    @discardableResult
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while true {
            if !isRunning { return terminationStatus }
            let reaped = waitpid(processIdentifier, &status, WNOHANG)
            if reaped == processIdentifier { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if reaped < 0, errno == ECHILD { return isRunning ? 1 : terminationStatus }
            usleep(10_000)
        }
    }
}
