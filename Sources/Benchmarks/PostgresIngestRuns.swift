import Foundation

/// `journey ingest` of one file into SQLite and into PostgreSQL, by one build or two (this
/// build and a baseline, in alternating order round by round), each run timed three ways: the
/// whole process's wall time, the ingest's own time (what `journey ingest` reports: start-up and
/// the rules' compilation left out), the process's CPU time (user and system) and, on a local
/// PostgreSQL server, the server's CPU time (``ServerCPU``: its backends' work for the run,
/// the migrations of the fresh schema included).
struct PostgresIngestRuns {
    /// One run's times, in seconds.
    struct Timing {
        var wall: Double
        var own: Double
        var cpu: Double
        /// The server's CPU seconds (PostgreSQL only, when it can be read).
        var server: Double?
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The builds, `this build` first: a label and a `journey` executable.
    var builds: [(label: String, journey: String)]
    var folder: String
    var file: String
    /// The PostgreSQL server's CPU, when it runs on this machine.
    var server: ServerCPU?

    /// Times by build label and store (`sqlite`, `postgres`), a value per round.
    private(set) var timings: [String: [String: [Timing]]] = [:]

    /// One round: each build into a fresh SQLite file and a fresh schema (from `schema`, given
    /// a name); the first build's schema is returned (its rows for the raw writes).
    mutating func round(_ round: Int, schema: (String) throws -> String) throws -> String {
        var written = ""
        let order = round % 2 == 0 ? Array(builds.indices) : builds.indices.reversed()
        for index in order {
            let build = builds[index]
            let sqlite = folder + "/ingest-\(index)-\(round).sqlite"
            timings[build.label, default: [:]]["sqlite", default: []].append(try time(build.journey, db: sqlite))
            let postgres = try schema("ingest_\(index)_\(round)")
            timings[build.label, default: [:]]["postgres", default: []].append(
                try time(build.journey, db: postgres, server: server))
            if index == 0 { written = postgres }
        }
        return written
    }

    /// The medians of a build's runs on a store.
    func medians(_ label: String, _ store: String) -> Timing {
        let runs = timings[label]?[store] ?? []
        let server = runs.compactMap(\.server)
        return Timing(
            wall: median(runs.map(\.wall)), own: median(runs.map(\.own)), cpu: median(runs.map(\.cpu)),
            server: server.isEmpty ? nil : median(server))
    }

    /// The table: a row per build and store, and per build PostgreSQL's rate as a share of
    /// SQLite's by each measure.
    func report(events: Int) -> String {
        let count = Double(events)
        var rows: [[String]] = []
        for build in builds {
            for (store, name) in [("sqlite", "SQLite"), ("postgres", "PostgreSQL")] {
                let time = medians(build.label, store)
                rows.append([
                    "\(build.label), \(name)", String(format: "%.2f s", time.wall), String(format: "%.2f s", time.own),
                    String(format: "%.2f s", time.cpu), time.server.map { String(format: "%.2f s", $0) } ?? "",
                    String(format: "%.0f", count / time.own),
                ])
            }
            let (sqlite, postgres) = (medians(build.label, "sqlite"), medians(build.label, "postgres"))
            rows.append([
                "\(build.label), PostgreSQL ÷ SQLite (events/s)", String(format: "%.2f×", sqlite.wall / postgres.wall),
                String(format: "%.2f×", sqlite.own / postgres.own), String(format: "%.2f×", sqlite.cpu / postgres.cpu),
                "", "",
            ])
        }
        return table(
            header: ["run", "whole process", "ingest's own", "CPU", "server CPU", "events/s (own)"], rows: rows)
    }

    /// Runs `journey ingest` of the file into `db`.
    private func time(_ journey: String, db: String, server: ServerCPU? = nil) throws -> Timing {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journey)
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.arguments = ["ingest", file, "--db", db, "--now", "2026-11-29T12:00:00Z", "-q"]
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        let cpuBefore = Self.childrenCPU()
        let (serverProcesses, serverBefore) = (server?.processes ?? [], server?.seconds ?? 0)
        let start = Date()
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let wall = Date().timeIntervalSince(start)
        server?.settle(to: serverProcesses)
        let serverSeconds = server.map { $0.seconds - serverBefore }
        guard process.terminationStatus == 0 else {
            throw Problem(description: "journey ingest --db \(db) failed: \((problems + text).prefix(2000))")
        }
        // The summary's last line: `… in 1.23 s (8130 events/s)`.
        guard let range = text.range(of: " in ", options: .backwards),
            let own = Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        else { throw Problem(description: "journey ingest printed no time: \(text.suffix(500))") }
        return Timing(wall: wall, own: own, cpu: Self.childrenCPU() - cpuBefore, server: serverSeconds)
    }

    /// The CPU seconds of this process's children that ended and were waited for.
    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
