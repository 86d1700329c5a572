import Core
import Foundation

/// What a benchmark's output carries so that two runs (or two builds in one run) can be told
/// apart and compared: when, on which builds, and how loaded the shared machine was.
enum RunContext {
    /// `2026-12-06 14:05 UTC`.
    static var date: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date())
    }

    /// The load averages over 1, 5 and 15 minutes (`/proc/loadavg`; none where there is none).
    static var loadAverages: [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    /// ``loadAverages`` as `/proc/loadavg` writes them (`0.85 2.50 3.20`), or `unknown`.
    static var load: String {
        let averages = loadAverages
        return averages.isEmpty ? "unknown" : averages.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }

    /// The commit checked out in the current directory (`-dirty` with uncommitted changes), or
    /// nil outside a git checkout.
    static var commit: String? {
        guard let head = output("/usr/bin/git", ["rev-parse", "--short", "HEAD"]), !head.isEmpty else { return nil }
        let changes = output("/usr/bin/git", ["status", "--porcelain", "--untracked-files=no"]) ?? ""
        return head + (changes.isEmpty ? "" : "-dirty")
    }

    /// An executable named by the first 12 hex digits of its SHA-256: the same digits, the
    /// same build.
    static func fingerprint(_ executable: String) -> String {
        guard let bytes = FileManager.default.contents(atPath: executable) else { return "unknown" }
        return String(SHA256.hex(bytes: SHA256.digest(bytes)).prefix(12))
    }

    /// `journey` of this build: its commit (when run from a checkout) and its fingerprint.
    static func describe(_ executable: String, thisBuild: Bool) -> String {
        let commit = thisBuild ? commit.map { "commit \($0), " } ?? "" : ""
        return "\(executable) (\(commit)sha256 \(fingerprint(executable)))"
    }

    /// What `executable` prints with `arguments`, trimmed; nil when it cannot run or fails.
    private static func output(_ executable: String, _ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
