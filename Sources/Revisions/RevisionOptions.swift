import CommandKit
import Foundation
import Store

/// The options the revision commands share.
enum RevisionOptions {
    static let message = OptionSpec(
        long: "message", short: "m", valueName: "text", help: "Why: kept with the revision and in the audit trail.")
    static let author = OptionSpec(
        long: "author", valueName: "name", help: "Who (default: $USER).")
    static let limit = OptionSpec(long: "limit", valueName: "n", help: "At most this many.", defaultValue: "50")

    /// `--author`, else the login name, else `cli`.
    static func author(_ arguments: ParsedArguments, spec: CommandSpec) -> String {
        arguments.value("author", spec: spec) ?? ProcessInfo.processInfo.environment["USER"] ?? "cli"
    }

    /// `--limit` as a number from 1 to 10,000.
    static func limit(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Int {
        let text = arguments.value("limit", spec: spec) ?? "50"
        guard let n = Int(text), (1...10_000).contains(n) else {
            throw UsageError(
                message: "The value '\(text)' for '--limit <n>' is not a number from 1 to 10000", command: spec)
        }
        return n
    }
}

/// "2026-12-01 10:03" in UTC, as tables show times.
func shortTime(_ seconds: Double) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}
