import Core
import Foundation
import Postgres

/// The PostgreSQL store beside the embedded SQLite one, in the same run: `journey ingest` of
/// the ingest workload (100,000 events by default) into each, and `POST /v1/events` (batches
/// of 10 events) through one SQLite service and through 1, 2 and 3 `journey serve` instances
/// sharing one PostgreSQL database (each instance its own wrk, the connections shared out).
struct PostgresBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        guard let url = options.postgres else {
            throw Problem(description: "postgres needs --postgres URL (scripts/bench postgres starts a server)")
        }
        let setup = try ServiceBenchmarkSetup(name: "postgres", rulesDirectory: options.rulesDirectory)
        defer { setup.remove() }
        let (wrk, journey, folder) = (setup.wrk, setup.journey, setup.folder)

        print("journey-bench postgres: the PostgreSQL store beside SQLite, in the same run\n")
        try ingest(journey: journey, folder: folder, url: url)
        try service(journey: journey, wrk: wrk, folder: folder, url: url)
    }

    /// `journey ingest` of the workload into a fresh store of each backend.
    private func ingest(journey: String, folder: String, url: String) throws {
        let workload = IngestWorkload(events: options.events)
        let file = folder + "/events.jsonl"
        try (workload.lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        print("journey ingest, \(workload.lines.count) events (\(options.rounds) rounds, medians):")
        var seconds: [String: [Double]] = [:]
        for round in 0..<options.rounds {
            let sqlite = folder + "/ingest-\(round).sqlite"
            seconds["sqlite", default: []].append(try timeIngest(journey, file, db: sqlite, folder: folder))
            let postgres = try freshSchema(url, name: "ingest_\(round)")
            seconds["postgres", default: []].append(try timeIngest(journey, file, db: postgres, folder: folder))
            let raw = try PostgresRawWrites(url: postgres)
            seconds["copy", default: []].append(raw.copySeconds * Double(workload.lines.count) / Double(raw.rows))
            seconds["insert", default: []].append(raw.insertSeconds * Double(workload.lines.count) / Double(raw.rows))
        }
        let sqlite = median(seconds["sqlite"]!)
        let postgres = median(seconds["postgres"]!)
        let count = Double(workload.lines.count)
        print(String(format: "  SQLite       %8.2f s  %8.0f events/s", sqlite, count / sqlite))
        print(
            String(
                format: "  PostgreSQL   %8.2f s  %8.0f events/s  (%.2f× SQLite's events/s)", postgres, count / postgres,
                sqlite / postgres))
        print(
            "  The same rows of `events` written again on the same server, nothing else (the physical limit), in transactions of \(PostgresRawWrites.batch):"
        )
        for (name, label) in [("copy", "COPY"), ("insert", "INSERT, \(PostgresRawWrites.rowsPerInsert) rows each")] {
            let raw = median(seconds[name]!)
            print(
                String(
                    format: "  %@ %8.2f s  %8.0f rows/s  (the engine's ingest: %.2f× its rate)",
                    label.padding(toLength: 26, withPad: " ", startingAt: 0), raw,
                    count / raw, raw / postgres))
        }
        print("")
    }

    private func timeIngest(_ journey: String, _ file: String, db: String, folder: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journey)
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.arguments = ["ingest", file, "--db", db, "--now", "2026-11-29T12:00:00Z", "-q"]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let start = Date()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        guard process.terminationStatus == 0 else {
            throw Problem(description: "journey ingest --db \(db) failed: \(text.prefix(2000))")
        }
        return elapsed
    }

    /// POST /v1/events through one SQLite service and 1, 2 and 3 PostgreSQL instances.
    private func service(journey: String, wrk: String, folder: String, url: String) throws {
        let workers = options.workers
        print(
            "POST /v1/events, 10 events each: \(workers) workers per instance; \(options.connections) connections in all, shared out over one wrk per instance; \(options.seconds) s runs, \(options.rounds) rounds, medians"
        )
        let occurredAt = Timestamp.format(Date().timeIntervalSince1970 - 120)
        let scripts = try (0..<3).map { index in
            let script = folder + "/events-\(index).lua"
            try HTTPBenchmark.eventsScript(occurredAt: occurredAt, salt: "i\(index)-")
                .write(toFile: script, atomically: true, encoding: .utf8)
            return script
        }
        let sqlite = try HTTPBenchmark.Service(
            journey: journey, folder: folder, name: "sqlite", workers: workers, extra: ["--no-watch"])
        defer { sqlite.stop() }
        let shared = try freshSchema(url, name: "service")
        var instances: [HTTPBenchmark.Service] = []
        defer { for instance in instances { instance.stop() } }
        for index in 0..<3 {
            instances.append(
                try HTTPBenchmark.Service(
                    journey: journey, folder: folder, name: "postgres-\(index)", workers: workers,
                    extra: ["--no-watch", "--no-jobs"], database: shared, seed: index == 0))
        }
        var rates: [String: [Double]] = [:]
        for _ in 0..<options.rounds {
            rates["sqlite", default: []].append(try load(wrk, ports: [sqlite.port], scripts: scripts))
            for count in 1...3 {
                rates["postgres \(count)", default: []].append(
                    try load(wrk, ports: instances.prefix(count).map(\.port), scripts: scripts))
            }
        }
        let base = median(rates["sqlite"]!)
        print("  store                    events/s   of SQLite's service")
        print(String(format: "  SQLite, 1 instance      %9.0f   100%%", base))
        for count in 1...3 {
            let rate = median(rates["postgres \(count)"]!)
            print(
                String(
                    format: "  PostgreSQL, %d instance%@ %9.0f   %3.0f%%", count, count == 1 ? " " : "s", rate,
                    rate / base * 100))
        }
    }

    /// One wrk per port at once, the connections shared out; the events per second of all.
    private func load(_ wrk: String, ports: [Int], scripts: [String]) throws -> Double {
        let connections = max(1, options.connections / ports.count)
        let results = Results()
        let group = DispatchGroup()
        for (index, port) in ports.enumerated() {
            group.enter()
            let script = scripts[index]
            let seconds = options.seconds
            DispatchQueue.global().async {
                defer { group.leave() }
                do {
                    let measure = try HTTPBenchmark.bench(
                        wrk, port: port, path: "/v1/events", script: script, threads: 1, connections: connections,
                        seconds: seconds)
                    results.add(measure.requestsPerSecond * 10, errors: measure.errors)
                } catch {
                    results.fail("\(error)")
                }
            }
        }
        group.wait()
        if let failure = results.failure { throw Problem(description: failure) }
        if results.errors > 0 { print("  (\(results.errors) requests answered with an error)") }
        return results.total
    }

    /// A schema of its own on the server (dropped first if a run left it): the URL to it.
    private func freshSchema(_ url: String, name: String) throws -> String {
        let schema = "bench_\(name)"
        try PostgresConnection(url: url).execute(
            "SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(schema) CASCADE; CREATE SCHEMA \(schema)")
        return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }

    /// What the wrk runs of one load step found, gathered from their threads.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var total = 0.0
        private(set) var errors = 0
        private(set) var failure: String?

        func add(_ rate: Double, errors: Int) {
            lock.withLock {
                total += rate
                self.errors += errors
            }
        }

        func fail(_ text: String) {
            lock.withLock { failure = text }
        }
    }
}
