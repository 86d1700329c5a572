import Core
import Foundation
import Postgres

/// The PostgreSQL store beside the embedded SQLite one, in the same run: `journey ingest` of
/// the ingest workload (100,000 events by default) into each, and `POST /v1/events` (batches
/// of 10 events) through one SQLite service and through 1, 2 and 3 `journey serve` instances
/// sharing one PostgreSQL database (each instance its own wrk, the connections shared out).
/// With `--baseline`, another build's `journey` runs beside this one in the same rounds (the
/// ingest, and one SQLite and one PostgreSQL service): a before/after of a change. The output
/// starts with the date, both builds (commit, SHA-256) and the load.
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

        var builds = [(label: "this build", journey: journey)]
        if let baseline = options.baseline { builds.append((label: "baseline", journey: baseline)) }
        print("journey-bench postgres: the PostgreSQL store beside SQLite, in the same run")
        print("  \(RunContext.date); load average \(RunContext.load) at the start")
        print("  this build: \(RunContext.describe(journey, thisBuild: true))")
        if let baseline = options.baseline { print("  baseline:   \(RunContext.describe(baseline, thisBuild: false))") }
        print("  server: PostgreSQL \(try serverVersion(url))\n")
        try ingest(builds: builds, folder: folder, url: url)
        try service(builds: builds, wrk: wrk, folder: folder, url: url)
        print("\nload average \(RunContext.load) at the end")
    }

    /// `journey ingest` of the workload into a fresh store of each backend, by each build, and
    /// the raw writes of the same rows.
    private func ingest(builds: [(label: String, journey: String)], folder: String, url: String) throws {
        let workload = IngestWorkload(events: options.events)
        let file = folder + "/events.jsonl"
        try (workload.lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        print("journey ingest, \(workload.lines.count) events (\(options.rounds) rounds, medians):")
        var runs = PostgresIngestRuns(builds: builds, folder: folder, file: file, server: ServerCPU(url: url))
        var raw: [String: [Double]] = [:]
        for round in 0..<options.rounds {
            let postgres = try runs.round(round) { try freshSchema(url, name: $0) }
            let writes = try PostgresRawWrites(url: postgres)
            raw["copy", default: []].append(writes.copySeconds * Double(workload.lines.count) / Double(writes.rows))
            raw["insert", default: []].append(writes.insertSeconds * Double(workload.lines.count) / Double(writes.rows))
        }
        print(runs.report(events: workload.lines.count))
        let count = Double(workload.lines.count)
        let engine = runs.medians(builds[0].label, "postgres")
        print(
            "  The same rows of `events` written again on the same server, nothing else (the physical limit), in transactions of \(PostgresRawWrites.batch); this build's PostgreSQL ingest beside them (its own time):"
        )
        for (name, label) in [("copy", "COPY"), ("insert", "INSERT, \(PostgresRawWrites.rowsPerInsert) rows each")] {
            let seconds = median(raw[name]!)
            print(
                String(
                    format: "  %@ %8.2f s  %8.0f rows/s  (the engine's ingest: %.2f× its rate)",
                    label.padding(toLength: 26, withPad: " ", startingAt: 0), seconds,
                    count / seconds, seconds / engine.own))
        }
        print("")
    }

    /// POST /v1/events through one SQLite service and 1, 2 and 3 PostgreSQL instances of this
    /// build; of a baseline build, through one SQLite service and one PostgreSQL instance.
    private func service(builds: [(label: String, journey: String)], wrk: String, folder: String, url: String)
        throws
    {
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
        var services: [(sqlite: HTTPBenchmark.Service, postgres: [HTTPBenchmark.Service])] = []
        defer {
            for service in services {
                service.sqlite.stop()
                for instance in service.postgres { instance.stop() }
            }
        }
        for (index, build) in builds.enumerated() {
            let sqlite = try HTTPBenchmark.Service(
                journey: build.journey, folder: folder, name: "sqlite-\(index)", workers: workers,
                extra: ["--no-watch"])
            services.append((sqlite, []))
            let shared = try freshSchema(url, name: "service_\(index)")
            for instance in 0..<(index == 0 ? 3 : 1) {
                services[index].postgres.append(
                    try HTTPBenchmark.Service(
                        journey: build.journey, folder: folder, name: "postgres-\(index)-\(instance)",
                        workers: workers, extra: ["--no-watch", "--no-jobs"], database: shared, seed: instance == 0))
            }
        }
        var rates: [String: [Double]] = [:]
        for round in 0..<options.rounds {
            let order = round % 2 == 0 ? Array(builds.indices) : builds.indices.reversed()
            for index in order {
                let label = builds[index].label
                rates["\(label) sqlite", default: []].append(
                    try load(
                        wrk, ports: [services[index].sqlite.port], scripts: scripts,
                        label: "\(label), SQLite, round \(round + 1)"))
                for count in 1...services[index].postgres.count {
                    rates["\(label) postgres \(count)", default: []].append(
                        try load(
                            wrk, ports: services[index].postgres.prefix(count).map(\.port), scripts: scripts,
                            label: "\(label), PostgreSQL ×\(count), round \(round + 1)"))
                }
            }
        }
        var rows: [[String]] = []
        for (index, build) in builds.enumerated() {
            let base = median(rates["\(build.label) sqlite"]!)
            rows.append(["\(build.label), SQLite, 1 instance", String(format: "%.0f", base), "100%"])
            for count in 1...services[index].postgres.count {
                let rate = median(rates["\(build.label) postgres \(count)"]!)
                rows.append([
                    "\(build.label), PostgreSQL, \(count) instance\(count == 1 ? "" : "s")",
                    String(format: "%.0f", rate),
                    String(format: "%.0f%%", rate / base * 100),
                ])
            }
        }
        print(table(header: ["service", "events/s", "of its SQLite service"], rows: rows))
    }

    /// One wrk per port at once, the connections shared out; the events per second of all (errors
    /// printed with `label`).
    private func load(_ wrk: String, ports: [Int], scripts: [String], label: String) throws -> Double {
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
        if results.errors > 0 { print("  (\(label): \(results.errors) requests answered with an error)") }
        return results.total
    }

    /// `SHOW server_version`.
    private func serverVersion(_ url: String) throws -> String {
        var version = "unknown"
        try PostgresConnection(url: url).query("SHOW server_version") { version = $0.text(0) ?? version }
        return version
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
