import Foundation

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
    /// After ``kill()``, starts it again (it recovers from its write-ahead log).
    public func restart() throws {
        _ = try Self.script("restart", folder.path + "/server")
    }

    /// Kills the server as a crash would (SIGKILL to the postmaster); ``restart()`` brings it back.
    public func kill() throws {
        _ = try Self.script("kill", folder.path + "/server")
    }

    private static func script(_ command: String, _ directory: String) throws -> String {
        let run = try ProcessRun(Repository.root + "/scripts/postgres", [command, directory])
        guard run.status == 0 else {
            throw ThrowawayPostgresError(description: "scripts/postgres \(command) failed: \(run.stderr)")
        }
        return run.stdout
    }
}

struct ThrowawayPostgresError: Error, CustomStringConvertible {
    var description: String
}
