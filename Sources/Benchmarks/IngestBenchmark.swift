import Core
import Engine
import Features
import Foundation
import JQ
import Journey
import RuleEngine
import SQLite
import SQLiteStore
import Store

/// The ingest path beside plain inserts of the same rows into the same schema, same run.
///
/// The engine side is what `journey ingest` does: parse each JSON line, validate, dedupe,
/// check times and dogs, run the consumers (registration and the three bundled
/// `event_effects` rules), write the event and its effects, in transactions of 500 events.
/// The baseline replays the rows the engine wrote, every column (users, dogs, events with their
/// outcome, revision and provenance, records, reminders as merged, analytics), already built,
/// with prepared statements in transactions of the same size: the cost of storing alone.
struct IngestBenchmark {
    var options: BenchmarkOptions
    static let batchSize = 500
    static let receivedAt = Timestamp.parse("2026-11-29T12:00:00Z")!

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let loaded = Features.all.loader(rulesDirectory: options.rulesDirectory, pluginsDirectory: "Plugins").load()
        guard let evaluator = loaded.evaluator else {
            throw Problem(
                description: "the rules do not load: \(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        }
        let consumers = Ingestor.defaultConsumers(for: evaluator.ruleSet)
        let workload = IngestWorkload(events: options.events)
        print("journey-bench ingest: the ingest path beside plain inserts of the same rows (same schema, same run)")
        print(
            "\(workload.lines.count) events (\(workload.registrations) registrations, \(workload.weights) weights, \(workload.openings) journey openings, the rest taps)"
        )
        print("consumers: \(consumers.map(\.name).joined(separator: ", ")); transactions of \(Self.batchSize) events\n")

        var engineTimes: [Double] = []
        var baselineTimes: [Double] = []
        var rows = 0
        for _ in 0..<options.rounds {
            let engineFile = TemporaryFile()
            engineTimes.append(try ingest(workload, evaluator: evaluator, path: engineFile.path))
            let replay = try Replay(from: engineFile.path)
            rows = replay.rowCount
            let baselineFile = TemporaryFile()
            baselineTimes.append(try replay.insert(into: baselineFile.path, batchSize: Self.batchSize))
            let differing = try Replay.differingTables(engine: engineFile.path, baseline: baselineFile.path)
            guard differing.isEmpty else {
                throw Problem(
                    description:
                        "the plain inserts did not write the rows the engine wrote: \(differing.joined(separator: ", "))"
                )
            }
        }
        let engine = median(engineTimes)
        let baseline = median(baselineTimes)
        let count = Double(workload.lines.count)
        print("rows written per run: \(rows) (\(String(format: "%.1f", Double(rows) / count)) per event)")
        print(String(format: "engine ingest:   %8.0f events/s  (%.1f µs/event)", count / engine, engine / count * 1e6))
        print(
            String(format: "plain inserts:   %8.0f events/s  (%.1f µs/event)", count / baseline, baseline / count * 1e6)
        )
        print(
            String(
                format: "engine / plain:  %.2f× the time (goal: within 2×; at least 30,000 events/s)", engine / baseline
            ))
        print("medians of \(options.rounds) alternating rounds")

        if !options.withoutFeatures { try compareFeatures(workload, evaluator: evaluator) }
        if options.scaling { try showScaling(evaluator: evaluator) }
    }

    /// The same workload with every feature's consumers (journey, onboarding, habits,
    /// challenges), as `journey ingest` and the service run it: what the features cost on
    /// events that are not theirs.
    private func compareFeatures(_ workload: IngestWorkload, evaluator: RuleEvaluator) throws {
        let count = Double(workload.lines.count)
        var featureTimes: [Double] = []
        var plainTimes: [Double] = []
        for _ in 0..<options.rounds {
            let file = TemporaryFile()
            featureTimes.append(
                try ingest(
                    workload, evaluator: evaluator, path: file.path, allFeatures: true))
            let plainFile = TemporaryFile()
            plainTimes.append(try ingest(workload, evaluator: evaluator, path: plainFile.path))
        }
        let features = median(featureTimes)
        let plain = median(plainTimes)
        print(
            String(
                format:
                    "every feature's consumers: %8.0f events/s  (%.2f× the time of the consumers above, same rounds)",
                count / features,
                features / plain))
    }

    /// The engine alone on 10k, 100k and 1M events: how cost grows.
    private func showScaling(evaluator: RuleEvaluator) throws {
        print("\nhow cost grows (engine, one run each):")
        for size in [10_000, 100_000, 1_000_000] {
            let load = IngestWorkload(events: size)
            let file = TemporaryFile()
            let seconds = try ingest(load, evaluator: evaluator, path: file.path)
            let perEvent = seconds / Double(load.lines.count) * 1e6
            print(
                String(
                    format: "  %9d events: %7.2f s  %8.0f events/s  %6.1f µs/event", load.lines.count, seconds,
                    Double(load.lines.count) / seconds, perEvent))
        }
    }

    /// Seconds to ingest every line into a new store at `path`.
    private func ingest(
        _ workload: IngestWorkload, evaluator: RuleEvaluator, path: String, allFeatures: Bool = false
    ) throws -> Double {
        let store = try SQLiteStore(path: path, schema: Features.all.schema)
        let policy = IngestPolicy(clock: { Self.receivedAt })
        let cores = options.cores ?? ProcessInfo.processInfo.activeProcessorCount
        let ingestor =
            allFeatures
            ? Features.all.makeIngestor(store: store, evaluator: evaluator, policy: policy, cores: cores)
            : Ingestor(store: store, evaluator: evaluator, policy: policy, cores: cores)
        let parser = JSONParser()
        let clock = ContinuousClock()
        let started = clock.now
        var rejected = 0
        let batches = BatchSequence(lines: workload.lines, size: Self.batchSize, parser: parser)
        ingestor.ingest(stream: batches) { results in
            rejected += results.filter { $0.status != .accepted }.count
        }
        let elapsed = clock.now - started
        guard rejected == 0 else { throw Problem(description: "\(rejected) events were not accepted") }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

}

/// A database file in the temporary folder, removed (with its WAL) when released.
final class TemporaryFile {
    let path = NSTemporaryDirectory() + "journey-bench-\(UUID().uuidString).sqlite"
    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// The rows an engine run wrote, ready to be inserted again with plain statements.
struct Replay {
    struct EventRows {
        var user: [SQLiteValue]?
        var dogs: [[SQLiteValue]]
        var event: [SQLiteValue]
        var records: [[SQLiteValue]]
        var reminders: [[SQLiteValue]]
        var analytics: [[SQLiteValue]]
    }

    var events: [EventRows] = []
    var rowCount = 0

    static let userInsert = "INSERT INTO users (user_id, first_seen_at, timezone) VALUES (?, ?, ?)"
    static let dogInsert =
        "INSERT INTO dogs (dog_id, user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let eventInsert =
        "INSERT INTO events (id, user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome, rule_revision, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let recordInsert =
        "INSERT INTO profile_records (dog_id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let reminderInsert =
        "INSERT INTO reminders (user_id, dog_id, kind, due_at, payload, status, runner_due, runner_payload, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let analyticsInsert =
        "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)"

    init(from path: String) throws {
        let db = try Connection(path: path)
        func values(_ row: Row, _ count: Int32) -> [SQLiteValue] {
            (0..<count).map { row.value($0) }
        }
        var users: [String: [SQLiteValue]] = [:]
        try db.prepare("SELECT user_id, first_seen_at, timezone FROM users").query { row in
            users[row.text(0) ?? ""] = values(row, 3)
        }
        var dogs: [String: [SQLiteValue]] = [:]
        try db.prepare(
            "SELECT dog_id, user_id, name, birth_date, age_range, breed, timezone, metrics, registered_at FROM dogs"
        ).query { row in dogs[row.text(0) ?? ""] = values(row, 9) }
        func grouped(_ sql: String, _ count: Int32) throws -> [Int64: [[SQLiteValue]]] {
            var byEvent: [Int64: [[SQLiteValue]]] = [:]
            try db.prepare(sql).query { row in
                byEvent[row.integer(count), default: []].append(values(row, count + 1))
            }
            return byEvent
        }
        let records = try grouped(
            "SELECT dog_id, kind, recorded_at, recorded_at_text, payload, source, rule_revision, block_id, event FROM profile_records ORDER BY id",
            8)
        let reminders = try grouped(
            "SELECT user_id, dog_id, kind, due_at, payload, status, runner_due, runner_payload, event FROM reminders ORDER BY id",
            8)
        let analytics = try grouped(
            "SELECT user_id, name, occurred_at, properties, event FROM analytics_outbox ORDER BY id", 4)
        var seenUsers: Set<String> = []
        try db.prepare(
            "SELECT id, user_id, event_id, type, dog_id, occurred_at, occurred_at_text, received_at, payload, outcome, rule_revision, provenance FROM events ORDER BY id"
        ).query { row in
            let id = row.integer(0)
            let user = row.text(1) ?? ""
            let firstOfUser = seenUsers.insert(user).inserted
            let dog = row.text(3) == "dog_registered" ? row.text(4).flatMap { dogs[$0] } : nil
            let rows = EventRows(
                user: firstOfUser ? users[user] : nil, dogs: dog.map { [$0] } ?? [], event: values(row, 12),
                records: records[id] ?? [], reminders: reminders[id] ?? [], analytics: analytics[id] ?? [])
            rowCount +=
                1 + (rows.user == nil ? 0 : 1) + rows.dogs.count + rows.records.count + rows.reminders.count
                + rows.analytics.count
            events.append(rows)
        }
    }

    /// The tables whose rows differ between the engine's store and the baseline's, every column
    /// compared: the baseline must store exactly what the engine stored, or its time means
    /// nothing. (The stores' schema bookkeeping, written when each was created, is left out.)
    static func differingTables(engine: String, baseline: String) throws -> [String] {
        let db = try Connection(path: engine)
        try db.run("ATTACH DATABASE ? AS baseline", [.text(baseline)])
        var tables: [String] = []
        try db.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN (\(bookkeeping)) ORDER BY name"
        ).query { row in tables.append(row.text(0) ?? "") }
        return try tables.filter { table in
            let only = { (left: String, right: String) in
                try db.scalar(
                    "SELECT count(*) FROM (SELECT * FROM \(left).\"\(table)\" EXCEPT SELECT * FROM \(right).\"\(table)\")"
                )
            }
            return try only("main", "baseline") != 0 || only("baseline", "main") != 0
        }
    }

    /// Tables a store writes when it is created, not by ingesting.
    private static let bookkeeping = "'schema_migrations', 'migrations'"

    /// Seconds to insert every row into a new store at `path`, `batchSize` events a transaction.
    func insert(into path: String, batchSize: Int) throws -> Double {
        let store = try SQLiteStore(path: path, schema: Features.all.schema)
        let db = store.connection
        let clock = ContinuousClock()
        let started = clock.now
        var index = 0
        while index < events.count {
            let end = min(index + batchSize, events.count)
            try db.transaction {
                for rows in events[index..<end] {
                    if let user = rows.user { try db.run(Self.userInsert, user) }
                    for dog in rows.dogs { try db.run(Self.dogInsert, dog) }
                    try db.run(Self.eventInsert, rows.event)
                    for record in rows.records { try db.run(Self.recordInsert, record) }
                    for reminder in rows.reminders { try db.run(Self.reminderInsert, reminder) }
                    for event in rows.analytics { try db.run(Self.analyticsInsert, event) }
                }
            }
            index = end
        }
        let elapsed = clock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// Lines parsed into batches lazily, as `journey ingest` reads a file.
struct BatchSequence: Sequence, IteratorProtocol {
    let lines: [String]
    let size: Int
    let parser: JSONParser
    var position = 0

    init(lines: [String], size: Int, parser: JSONParser) {
        self.lines = lines
        self.size = size
        self.parser = parser
    }

    mutating func next() -> [Result<JSON, Rejection>]? {
        guard position < lines.count else { return nil }
        let end = Swift.min(position + size, lines.count)
        defer { position = end }
        return lines[position..<end].map { line in
            do {
                return .success(try parser.parse(line))
            } catch {
                return .failure(Rejection(.invalid, "\(error)"))
            }
        }
    }
}
