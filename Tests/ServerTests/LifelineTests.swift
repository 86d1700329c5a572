import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `journey serve --exit-with-parent` (what the tests start): a service whose starter is
/// killed stops, workers and all, so that a killed test run leaves no service behind.
@Suite struct LifelineTests {
    @Test func aServiceEndsWithTheProcessThatStartedIt() throws {
        let folder = try TemporaryDirectory()
        try folder.copy(Repository.rules, to: "Rules")
        try folder.copy(Repository.plugins, to: "Plugins")
        // The starter: a shell that starts the service in the background, writes its pid, waits.
        let starter = Process()
        starter.executableURL = URL(fileURLWithPath: "/bin/sh")
        starter.arguments = [
            "-c",
            "\"$0\" serve --port 0 --workers 1 --access-log off --exit-with-parent 2>serve.err & echo $! >serve.pid; wait",
            try BuiltExecutable.path("journey"),
        ]
        starter.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_ADMIN_TOKEN"] = nil
        starter.environment = environment
        starter.standardOutput = FileHandle.nullDevice
        try starter.run()
        // Whatever fails below, the starter and what it started do not outlive the test.
        var killed = false
        defer {
            if !killed {
                kill(starter.processIdentifier, SIGKILL)
                starter.waitForExit()
            }
        }
        let log = { (try? String(contentsOfFile: folder.file("serve.err"), encoding: .utf8)) ?? "" }
        let supervisor = try waitFor("the service's pid") { () -> Int32? in
            guard let text = try? String(contentsOfFile: folder.file("serve.pid"), encoding: .utf8),
                text.hasSuffix("\n")
            else { return nil }
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try waitUntil("the service listening") {
            if !ProcessLife.isAlive(supervisor) { throw LifelineTestError("journey serve ended: \(log())") }
            return log().contains("listening on")
        }
        let workers = ProcessLife.children(of: supervisor)
        #expect(workers.count == 1, "\(workers)")

        kill(starter.processIdentifier, SIGKILL)
        starter.waitForExit()
        killed = true
        for pid in [supervisor] + workers {
            try waitUntil("the end of pid \(pid) (its starter was killed)") { !ProcessLife.isAlive(pid) }
        }
        #expect(log().contains("the process that started it (pid \(starter.processIdentifier)) ended: stopping"))
    }

    @Test func exitWithParentNeedsASupervisor() throws {
        let folder = try TemporaryDirectory()
        let run = try ProcessRun(
            try BuiltExecutable.path("journey"), ["serve", "--port", "0", "--workers", "0", "--exit-with-parent"],
            in: folder.path)
        #expect(run.status == 64)
        #expect(run.stderr.contains("--exit-with-parent needs a supervisor (--workers 1 or more)"), "\(run.stderr)")
    }
}

struct LifelineTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
