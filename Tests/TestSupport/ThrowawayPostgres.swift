import Foundation

/// A PostgreSQL server of a test's own (`scripts/postgres`: a temporary folder, a free
/// loopback port), for tests that restart it; stopped and removed when released. It may be a
/// streaming standby of another (``init(standbyOf:synchronous:)``), promoted by ``promote()``.
/// A watchdog stops it when the test process ends without releasing it (killed).
public final class ThrowawayPostgres: @unchecked Sendable {
    private let folder: TemporaryDirectory
    /// `postgresql://postgres@127.0.0.1:PORT/postgres`.
    public let url: String
    /// The loopback port it listens on.
    public let port: Int
    /// Whether PostgreSQL 15's programs are installed (Debian's `postgresql-15`), which a
    /// server of a test's own needs.
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/pg_basebackup")
    }

    public init() throws {
        folder = try TemporaryDirectory()
        // The server runs as the `postgres` user when the tests run as root: it must reach the folder.
        chmod(folder.path, 0o755)
        url = try Self.script("start", folder.path + "/server").trimmingCharacters(in: .whitespacesAndNewlines)
        port = try Self.port(of: url)
    }

    /// A streaming standby of `primary` (`scripts/postgres standby`), its synchronous standby
    /// when `synchronous` (the primary answers a commit once this one has flushed it); ready
    /// (streaming, and the synchronous one) when this returns.
    public init(standbyOf primary: ThrowawayPostgres, synchronous: Bool) throws {
        folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        url = try Self.script(
            "standby", folder.path + "/server", primary.folder.path + "/server", synchronous ? "sync" : "async"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        port = try Self.port(of: url)
    }

    /// One URL naming `servers` in order, connecting to the first that accepts writes
    /// (`target_session_attrs=read-write`): what instances use to follow a failover.
    public static func multiHostURL(_ servers: [ThrowawayPostgres]) -> String {
        "postgresql://postgres@" + servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
            + "/postgres?target_session_attrs=read-write"
    }

    /// Stops this primary's WAL senders (its standbys fall behind), or lets them go on.
    public func pauseReplication(_ paused: Bool) throws {
        _ = try Self.script(paused ? "pause" : "resume", folder.path + "/server")
    }

    /// Promotes this standby to a primary; returns once it accepts writes.
    public func promote() throws {
        _ = try Self.script("promote", folder.path + "/server")
    }

    private static func port(of url: String) throws -> Int {
        guard let text = url.split(separator: ":").last?.split(separator: "/").first, let port = Int(text) else {
            throw ThrowawayPostgresError(description: "scripts/postgres printed no port: \(url)")
        }
        return port
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

    /// Kills the server as the loss of its machine would: every process of it at once, so
    /// that nothing more is sent to a standby.
    public func crash() throws {
        _ = try Self.script("crash", folder.path + "/server")
    }

    private static func script(_ command: String, _ arguments: String...) throws -> String {
        // Its watchdog stops the server once this process has ended, killed or not.
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_POSTGRES_OWNER"] = String(getpid())
        let run = try ProcessRun(Repository.root + "/scripts/postgres", [command] + arguments, environment: environment)
        guard run.status == 0 else {
            throw ThrowawayPostgresError(description: "scripts/postgres \(command) failed: \(run.stderr)")
        }
        return run.stdout
    }
}

struct ThrowawayPostgresError: Error, CustomStringConvertible {
    var description: String
}
