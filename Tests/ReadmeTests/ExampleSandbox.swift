import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a shell command printed, standard output and error together in the order written.
struct CommandRun: Sendable {
    /// The shell's exit status (the last command of a pipeline), or the signal that ended it.
    var status: Int32
    /// Standard output and standard error, as one stream.
    var output: String
    /// Whether the command was stopped because it ran past the time limit.
    var timedOut: Bool
}

/// A fresh temporary working directory for one console block, holding copies of the
/// repository's `Rules/`, `Plugins/` and `examples/`; removed when released.
final class ExampleSandbox {
    /// The working directory the block's commands run in.
    let workingDirectory: String
    /// The directory above it, also holding each command's captured output.
    private let root: String
    private let buildDirectory: String
    private var commandsRun = 0

    /// How long one command may take before it is stopped (debug builds on a busy 2-core machine).
    static let timeLimit: Duration = .seconds(120)

    /// Copies the repository's folders into a new temporary directory.
    init(buildDirectory: String) throws {
        self.buildDirectory = buildDirectory
        root = NSTemporaryDirectory() + "journey-readme-" + UUID().uuidString
        workingDirectory = root + "/work"
        try FileManager.default.createDirectory(atPath: workingDirectory, withIntermediateDirectories: true)
        for folder in RepositoryPaths.copiedFolders {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.root + "/" + folder, toPath: workingDirectory + "/" + folder)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Runs `/bin/sh -c <shellText>` in the working directory, with the build directory first on
    /// `PATH`, standard input empty and both output streams into one file.
    func run(_ shellText: String) async throws -> CommandRun {
        commandsRun += 1
        let outputPath = root + "/output-\(commandsRun).txt"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw SandboxError("could not create \(outputPath)")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", shellText]
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.environment = environment()
        process.standardInput = FileHandle.nullDevice
        // One open file for both streams: what is written lands in the order it was written.
        process.standardOutput = output
        process.standardError = output

        let exited = ExitFlag()
        let exits = AsyncStream<Int32> { continuation in
            process.terminationHandler = { finished in
                exited.set()
                continuation.yield(finished.terminationStatus)
                continuation.finish()
            }
        }
        try process.run()
        let watchdog = Self.watchdog(stopping: process.processIdentifier, unless: exited)
        var status: Int32 = -1
        for await exitStatus in exits { status = exitStatus }
        watchdog.cancel()
        let timedOut = await watchdog.value

        let data = try Data(contentsOf: URL(fileURLWithPath: outputPath))
        return CommandRun(status: status, output: String(decoding: data, as: UTF8.self), timedOut: timedOut)
    }

    /// Kills the shell once it has run for `timeLimit`; the task's value says whether it did.
    private static func watchdog(stopping pid: Int32, unless exited: ExitFlag) -> Task<Bool, Never> {
        Task {
            do { try await Task.sleep(for: timeLimit) } catch { return false }
            // Only the shell this sandbox started, and only while it is still running.
            guard !exited.isSet else { return false }
            kill(pid, SIGKILL)
            return true
        }
    }

    /// A small fixed environment, so that nothing of the caller's (`JOURNEY_*`, `HOME`, the
    /// locale, the time zone) changes what the examples print.
    private func environment() -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return [
            "PATH": buildDirectory + ":" + inherited,
            "HOME": workingDirectory,
            "TMPDIR": root,
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
        ]
    }
}

/// Set once the shell has ended, so the watchdog never signals a process id that was reused.
private final class ExitFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

/// The sandbox could not be prepared.
struct SandboxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
