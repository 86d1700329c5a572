import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server (`scripts/postgres start` with JOURNEY_POSTGRES_OWNER) stops
/// once the process that owns it ends, killed or not: a killed test run leaves none behind.
@Suite(.enabled(if: ThrowawayPostgres.isInstalled, "PostgreSQL 15 is not installed"))
struct ThrowawayPostgresLifelineTests {
    @Test func theServerStopsWhenItsOwnerIsKilled() throws {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let owner = Process()
        owner.executableURL = URL(fileURLWithPath: "/bin/sh")
        owner.arguments = ["-c", "read line"]  // runs until killed: its stdin never ends
        let stdin = Pipe()
        owner.standardInput = stdin
        try owner.run()
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_POSTGRES_OWNER"] = String(owner.processIdentifier)
        let start = try ProcessRun(
            Repository.root + "/scripts/postgres", ["start", folder.file("server")], environment: environment)
        #expect(start.status == 0, "\(start.stderr)")
        let pidFile = try String(contentsOfFile: folder.file("server/data/postmaster.pid"), encoding: .utf8)
        let postmaster = try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) })
        #expect(ProcessLife.isAlive(postmaster))

        kill(owner.processIdentifier, SIGKILL)
        owner.waitForExit()
        try waitUntil("the end of the postmaster (pid \(postmaster)) after its owner was killed") {
            !ProcessLife.isAlive(postmaster)
        }
        _ = try ProcessRun(Repository.root + "/scripts/postgres", ["stop", folder.file("server")])
    }
}
