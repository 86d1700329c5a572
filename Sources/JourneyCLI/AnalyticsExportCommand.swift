import CommandKit
import Core
import FeatureKit
import Foundation
import Store

/// `journey analytics export`: the analytics outbox as JSON Lines, for the app's analytics
/// pipeline; what was written is marked sent, so the next export starts after it.
enum AnalyticsExportCommand: Command {
    static let spec = CommandSpec(
        name: "journey analytics export",
        overview: "Write the analytics events not sent yet as JSON Lines and mark them sent.",
        discussion: """
            One line per event, oldest first: {id, user_id, name, occurred_at, properties}. Each page of
            up to 1,000 events is marked sent once it is written, so each event reaches the pipeline
            once; with --keep nothing is marked. Should writing fail (a closed pipe, a full disk), that
            page is not marked and the next export writes it again (ids let the pipeline drop a
            repeat). The service offers the same as GET /v1/analytics/pending and POST /v1/analytics/sent.
            """,
        options: [
            CommonOptions.database,
            OptionSpec(
                long: "since", valueName: "iso8601", help: "Only events that occurred at or after this time."),
            OptionSpec(
                long: "limit", valueName: "n", help: "At most this many events.", defaultValue: "all",
                problem: { Int($0).map { $0 >= 1 } == true ? nil : "is not a whole number ≥ 1" }),
            OptionSpec(
                long: "format", valueName: "format", help: "Output format.", defaultValue: "jsonl",
                allowedValues: ["jsonl"]),
            OptionSpec(long: "keep", help: "Write the events without marking them sent."),
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError) -> ExitCode {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        var since: Double?
        if let text = arguments.values["since"]?.last {
            guard let parsed = Timestamp.parse(text) else {
                throw UsageError(
                    message: "The value '\(text)' for '--since <iso8601>' is not a date-time with an offset",
                    command: spec)
            }
            since = parsed
        }
        let limit = arguments.values["limit"]?.last.flatMap { Int($0) } ?? .max
        let keep = arguments.flags.contains("keep")
        do {
            guard let store = try CommonOptions.requiredStore(arguments, spec: spec, io: io, engine: engine) else {
                return .failure
            }
            var written = 0
            var after: Int64?
            while written < limit {
                let page = try store.pendingAnalytics(limit: min(1_000, limit - written), afterID: after, since: since)
                guard let last = page.last else { break }
                for event in page { io.stdout.line(event.json.compactText) }
                io.stdout.flush()
                guard !io.stdout.writeFailed else {
                    io.stderr.line(
                        "Error: the output could not be written; \(written) events were marked sent, the rest were not")
                    return .failure
                }
                if !keep { _ = try store.markAnalyticsSent(page.map { $0.id }, at: Date().timeIntervalSince1970) }
                written += page.count
                after = last.id
            }
            io.stderr.line(
                "\(written) analytics event\(written == 1 ? "" : "s") written\(keep || written == 0 ? "" : " and marked sent")"
            )
            return .success
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
    }
}
