import CommandKit
import Core
import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// `journey ingest`: feed app events (JSON lines) through the one ingest path.
enum IngestCommand: Command {
    static let spec = CommandSpec(
        name: "journey ingest",
        overview: "Ingest app events from a JSON-lines file into the store.",
        discussion: """
            Each line is one event: {"event_id", "user_id", "type", "occurred_at", "dog_id", "payload"}.
            Prints a line per event (accepted with its effects, duplicate, or rejected with a code
            and message) and a summary; with --format json, one JSON object per event on its own
            line, and the summary on stderr. Events are stored in transactions of --batch-size;
            a resent event is a duplicate and changes nothing. Exits with 1 when an event was
            rejected.
            """,
        arguments: [ArgumentSpec(name: "file", help: "A JSON-lines file, or - for standard input.")],
        options: [
            CommonOptions.database,
            CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(long: "batch-size", valueName: "n", help: "Events per transaction.", defaultValue: "500"),
            OptionSpec(
                long: "late-window", valueName: "duration", help: "Refuse events older than this.", defaultValue: "7d"),
            OptionSpec(
                long: "clock-skew", valueName: "duration", help: "Accept events this far in the future.",
                defaultValue: "5m"),
            OptionSpec(
                long: "now", valueName: "iso8601",
                help: "The time of receipt, for replaying files (default: the clock)."),
            OptionSpec(long: "quiet", short: "q", help: "Print only rejected events and the summary."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                message: arguments.positionals.isEmpty
                    ? "Missing the events file (or - for standard input)"
                    : "Unexpected argument '\(arguments.positionals[1])'", command: spec)
        }
        let path = arguments.positionals[0]
        let batchText = arguments.value("batch-size", spec: spec) ?? "500"
        guard let batchSize = Int(batchText), (1...100_000).contains(batchSize) else {
            throw UsageError(
                message: "The value '\(batchText)' for '--batch-size <n>' must be from 1 to 100000", command: spec)
        }
        let lateWindow = try duration(arguments, "late-window", "7d")
        let clockSkew = try duration(arguments, "clock-skew", "5m")
        var clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        if let text = arguments.values["now"]?.last {
            guard let seconds = Timestamp.parse(text) else {
                throw UsageError(
                    message: "The value '\(text)' for '--now <iso8601>' is not a date-time with an offset",
                    command: spec)
            }
            clock = { seconds }
        }
        let source: LineSource
        do {
            source = path == "-" ? LineSource(bytes: try io.readStdin()) : try LineSource(path: path)
        } catch {
            io.stderr.line("Error: cannot read \(path): \(error)")
            return .failure
        }
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else {
            return .ruleErrors
        }
        let store: any StoreConnection
        do {
            store = try CommonOptions.openStore(arguments, spec: spec, engine: engine)
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        let ingestor = engine.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(lateWindow: lateWindow, clockSkew: clockSkew, clock: clock))
        let report = IngestReport(
            io: io, json: CommonOptions.isJSON(arguments, spec: spec), quiet: arguments.flag("quiet"),
            totalBytes: source.totalBytes)
        let batches = EventBatches(source: source, size: batchSize)
        ingestor.ingest(stream: batches) { results in
            report.add(results, bytesRead: source.bytesRead)
        }
        report.finish()
        if let error = batches.readError {
            io.stderr.line("Error: reading \(path) failed after line \(batches.lastLine): \(error)")
            return .failure
        }
        return report.rejected > 0 ? .failure : .success
    }

    private static func duration(_ arguments: ParsedArguments, _ name: String, _ fallback: String) throws(UsageError)
        -> Duration
    {
        let text = arguments.value(name, spec: spec) ?? fallback
        guard let value = DurationText.parse(text) else {
            throw UsageError(
                message: "The value '\(text)' for '--\(name) <duration>' is not a duration such as 7d or 5m",
                command: spec)
        }
        return value
    }
}

/// Batches of parsed events from a line source; a line that is not JSON becomes a refusal.
/// Reading stops at the first read error, kept in ``readError``.
final class EventBatches: Sequence, IteratorProtocol {
    private let source: LineSource
    private let size: Int
    private let parser = JSONParser()
    private(set) var readError: Error?
    private(set) var lastLine = 0

    init(source: LineSource, size: Int) {
        self.source = source
        self.size = size
    }

    func next() -> [Result<JSON, Rejection>]? {
        guard readError == nil else { return nil }
        var batch: [Result<JSON, Rejection>] = []
        batch.reserveCapacity(size)
        while batch.count < size {
            let line: LineSource.Line?
            do {
                line = try source.next()
            } catch {
                readError = error
                break
            }
            guard let line else { break }
            lastLine = line.number
            guard let bytes = line.bytes else {
                batch.append(
                    .failure(
                        Rejection(.invalid, "line \(line.number) is longer than \(LineSource.maximumLineBytes) bytes")))
                continue
            }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                batch.append(.success(try bytes.withUnsafeBytes { try parser.parse($0) }))
            } catch {
                batch.append(.failure(Rejection(.invalid, "line \(line.number) is not JSON: \(error)")))
            }
        }
        return batch.isEmpty ? nil : batch
    }
}
