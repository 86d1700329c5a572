import Foundation
import Postgres

/// The CPU time of a PostgreSQL server on this machine (its postmaster and every process it
/// started, those that ended included), read from `/proc`: what a run cost the server, which
/// the load on a shared machine moves less than the wall clock. Nil when the server is not a
/// local one this process can see.
struct ServerCPU {
    let postmaster: Int32

    /// The server `url` names, found by the parent of the backend a connection gets.
    init?(url: String) {
        guard let connection = try? PostgresConnection(url: url) else { return nil }
        var backend: Int32 = 0
        try? connection.query("SELECT pg_backend_pid()") { backend = Int32($0.integer(0)) }
        guard backend > 0, let parent = Self.stat(backend)?.parent, Self.stat(parent) != nil else { return nil }
        postmaster = parent
    }

    /// The server's processes now.
    var processes: Set<Int32> { Set(Self.children(of: postmaster) + [postmaster]) }

    /// The seconds of CPU the server used so far: each living process's user and system time,
    /// and the postmaster's ended children's.
    var seconds: Double {
        let ticks = processes.compactMap { Self.stat($0)?.ticks }.reduce(0, +)
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits (at most 5 s) until the server runs no process that `before` did not hold: the
    /// backends of a client that ended have ended too, and their time counts in ``seconds``.
    func settle(to before: Set<Int32>) {
        let deadline = Date().addingTimeInterval(5)
        while !processes.isSubset(of: before), Date() < deadline { usleep(10_000) }
    }

    /// A process's parent and its own and its ended children's CPU ticks (`/proc/PID/stat`).
    private static func stat(_ pid: Int32) -> (parent: Int32, ticks: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        // After the name: state, ppid, …; utime, stime, cutime, cstime are fields 14–17.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let ticks = fields[11...14].compactMap { Int($0) }.reduce(0, +)
        return (parent, ticks)
    }

    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { stat($0)?.parent == parent }
    }
}
