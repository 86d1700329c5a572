import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program run to its end with its output captured: in files, not pipes, so that neither a
/// full pipe nor a child that outlives it (a server a script starts keeps the descriptors it
/// inherited) can keep the run waiting.
public struct ProcessRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `executable` with `arguments` in `directory` (default: the current one), with
    /// `environment` (default: this process's), until it ends.
    public init(
        _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil
    ) throws {
        let output = try TemporaryDirectory()
        precondition(
            FileManager.default.createFile(atPath: output.file("out"), contents: nil),
            "cannot create \(output.file("out"))")
        precondition(
            FileManager.default.createFile(atPath: output.file("err"), contents: nil),
            "cannot create \(output.file("err"))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle(forWritingAtPath: output.file("out"))
        process.standardError = FileHandle(forWritingAtPath: output.file("err"))
        try process.run()
        status = process.waitForExit()
        stdout = (try? String(contentsOfFile: output.file("out"), encoding: .utf8)) ?? ""
        stderr = (try? String(contentsOfFile: output.file("err"), encoding: .utf8)) ?? ""
    }
}

extension Process {
    /// Waits until the process ended, reaping it here (Foundation's own wait can miss the exit
    /// of a script whose children outlive it); its exit status. One still running after
    /// `timeout` is killed, and the test fails naming it.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(600)) -> Int32 {
        let name = executableURL?.lastPathComponent ?? "a process"
        let status = try? waitFor("the end of \(name) (pid \(processIdentifier))", timeout: timeout) { () -> Int32? in
            if !isRunning { return terminationStatus }
            var status: Int32 = 0
            let reaped = waitpid(processIdentifier, &status, WNOHANG)
            if reaped == processIdentifier {
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            // Reaped < 0 with ECHILD: Foundation reaped it first, and its status is ours once
            // Foundation has read it (answering 1 meanwhile failed a test that expected exit code
            // 64 under load); until then, as while it runs, wait.
            return nil
        }
        if let status { return status }
        Issue.record("\(name) (pid \(processIdentifier)) still ran after \(timeout): killed")
        kill(processIdentifier, SIGKILL)
        return -1
    }
}
