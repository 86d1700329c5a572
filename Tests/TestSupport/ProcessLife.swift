import Foundation

/// Whether processes are alive, for tests that wait for one to end: a process that ended but
/// was not reaped yet (a zombie, as an orphan under an init that reaps nothing stays) counts
/// as ended.
public enum ProcessLife {
    /// Whether process `pid` runs (exists and is not a zombie).
    public static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        // `pid (comm) S …`: the state follows the command name, which may hold spaces.
        let state = stat[stat.index(after: end)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    /// The children of process `pid` now.
    public static func children(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0) }
    }
}
