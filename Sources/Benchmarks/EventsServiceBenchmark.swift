import Core
import Foundation
import HTTP

/// `POST /v1/events` beside `journey ingest` on the same SQLite store, in the same run: the
/// events per second of each, with 10 and with 100 events a request, and the latency of a
/// 10-event request at 50% and 90% of the service's maximum rate, measured again just before
/// (each connection waits a random time between its requests, exponential around the mean that
/// holds the rate; the rate reached is printed beside the one aimed at).
struct EventsServiceBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let setup = try ServiceBenchmarkSetup(name: "events", rulesDirectory: options.rulesDirectory)
        defer { setup.remove() }
        let (wrk, journey, folder) = (setup.wrk, setup.journey, setup.folder)
        let occurredAt = Timestamp.format(Date().timeIntervalSince1970 - 120)
        let workers = options.workers
        print(
            "journey-bench events: POST /v1/events (\(workers) workers, wrk -t\(options.threads) -c\(options.connections) -d\(options.seconds)s) beside journey ingest of \(options.events) events (batches of 500), on the same SQLite store; \(options.rounds) alternating rounds, medians\n"
        )
        let service = try HTTPBenchmark.Service(
            journey: journey, folder: folder, name: "events", workers: workers, extra: ["--no-watch"])
        defer { service.stop() }
        // Another build (main's) on a store of its own, measured in the same rounds.
        let baseline = try options.baseline.map {
            try HTTPBenchmark.Service(
                journey: $0, folder: folder, name: "events-baseline", workers: workers, extra: ["--no-watch"])
        }
        defer { baseline?.stop() }
        var loads: [Double] = []
        func script(_ name: String, perRequest: Int, delay: Double? = nil) throws -> String {
            let path = folder + "/\(name).lua"
            try HTTPBenchmark.eventsScript(
                occurredAt: occurredAt, salt: name + "-", perRequest: perRequest, delayMilliseconds: delay
            ).write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let ten = try script("ten", perRequest: 10)
        let hundred = try script("hundred", perRequest: 100)
        var ingest: [Double] = []
        var byTen: [HTTPBenchmark.Measure] = []
        var byHundred: [HTTPBenchmark.Measure] = []
        var baselineTen: [HTTPBenchmark.Measure] = []
        var baselineHundred: [HTTPBenchmark.Measure] = []
        var startups: [Double] = []
        for round in 0..<options.rounds {
            // `journey ingest` loads and compiles the rules before its first event (the service
            // did so before it listened): timed alone on one event, and left out.
            let startup = try timeIngest(
                journey, folder: folder, occurredAt: occurredAt, name: "startup-\(round)", count: 1)
            let whole = try timeIngest(
                journey, folder: folder, occurredAt: occurredAt, name: "round-\(round)", count: options.events)
            startups.append(startup)
            ingest.append(Double(options.events - 1) / max(whole - startup, 1e-3))
            // The baseline goes first in every other round: a load that grows or falls during a
            // round weighs on both sides alike.
            let baselineFirst = round % 2 == 1
            if baselineFirst, let baseline {
                baselineTen.append(try load(wrk, port: baseline.port, script: ten))
                baselineHundred.append(try load(wrk, port: baseline.port, script: hundred))
            }
            byTen.append(try load(wrk, port: service.port, script: ten))
            byHundred.append(try load(wrk, port: service.port, script: hundred))
            if !baselineFirst, let baseline {
                baselineTen.append(try load(wrk, port: baseline.port, script: ten))
                baselineHundred.append(try load(wrk, port: baseline.port, script: hundred))
            }
            loads.append(RunContext.loadAverages.first ?? 0)
        }
        let ingestRate = median(ingest)
        let tenRate = median(byTen.map(\.requestsPerSecond)) * 10
        let hundredRate = median(byHundred.map(\.requestsPerSecond)) * 100
        print("                                   events/s   of journey ingest   p50 ms   p99 ms")
        print(
            String(
                format: "journey ingest (same store)       %9.0f   100%%   (its start, %.2f s, left out)", ingestRate,
                median(startups)))
        for (label, rate, measures) in [
            ("POST /v1/events, 10 a request ", tenRate, byTen),
            ("POST /v1/events, 100 a request", hundredRate, byHundred),
        ] {
            print(
                String(
                    format: "%@    %9.0f   %3.0f%%               %7.1f  %7.1f", label, rate, rate / ingestRate * 100,
                    median(measures.map(\.p50Milliseconds)), median(measures.map(\.p99Milliseconds))))
        }
        if let path = options.baseline {
            let baseTen = median(baselineTen.map(\.requestsPerSecond)) * 10
            let baseHundred = median(baselineHundred.map(\.requestsPerSecond)) * 100
            print("\nbaseline build (\(path)), same rounds, store of its own:")
            for (label, rate, measures, this) in [
                ("POST /v1/events, 10 a request ", baseTen, baselineTen, tenRate),
                ("POST /v1/events, 100 a request", baseHundred, baselineHundred, hundredRate),
            ] {
                print(
                    String(
                        format: "%@    %9.0f   %3.0f%%               %7.1f  %7.1f   this build %.2f× of it", label,
                        rate, rate / ingestRate * 100, median(measures.map(\.p50Milliseconds)),
                        median(measures.map(\.p99Milliseconds)), this / max(rate, 1)))
            }
        }
        for (label, port) in [("this build", service.port)] + (baseline.map { [("baseline", $0.port)] } ?? []) {
            if let (commits, requests) = Self.groupCommits(port: port) {
                print(
                    String(
                        format: "%@: %.0f POST /v1/events requests in %.0f transactions (%.1f a transaction)",
                        label, requests, commits, requests / max(commits, 1)))
            }
        }
        print(
            "load average (1 min) after each round: "
                + loads.map { String(format: "%.2f", $0) }.joined(separator: ", "))
        let errors = (byTen + byHundred + baselineTen + baselineHundred).map(\.errors).reduce(0, +)
        if errors > 0 { print("(\(errors) requests answered with an error)") }

        // Latency of 10-event requests below the maximum: each connection waits a random time
        // between requests; the mean wait is corrected twice from the rate reached. The maximum
        // is measured again first: the store has grown by every round's events since the rounds
        // measured it, and it is slower now (a rate aimed at from the rounds' median overloaded
        // it, and the latency measured was a queue's).
        let maxRequests = try load(wrk, port: service.port, script: try script("max-before-held", perRequest: 10))
            .requestsPerSecond
        print(
            String(
                format: "\n10-event requests held under the maximum (%.0f requests/s, measured just before; "
                    + "the rounds' median %.0f):", maxRequests, median(byTen.map(\.requestsPerSecond))))
        print("share of max   aimed req/s   reached req/s   p50 ms   p99 ms")
        for share in [0.5, 0.9] {
            let aim = maxRequests * share
            let cycle = Double(options.connections) / aim * 1000
            var delay = cycle
            var measure = HTTPBenchmark.Measure(requestsPerSecond: 0, p99Milliseconds: 0, errors: 0)
            for attempt in 0..<3 {
                measure = try load(
                    wrk, port: service.port,
                    script: try script("held-\(share)-\(attempt)", perRequest: 10, delay: delay))
                let reached = Double(options.connections) / max(measure.requestsPerSecond, 1) * 1000
                let latency = max(0, reached - delay)
                if abs(measure.requestsPerSecond - aim) / aim < 0.05 { break }
                delay = max(0, cycle - latency)
            }
            print(
                String(
                    format: "%5.0f%%       %11.0f   %13.0f   %6.1f   %6.1f", share * 100, aim,
                    measure.requestsPerSecond,
                    measure.p50Milliseconds, measure.p99Milliseconds))
        }
    }

    /// The service's group commit counters (`/metrics`): transactions and the requests they
    /// held; nil for a build without them.
    static func groupCommits(port: Int) -> (commits: Double, requests: Double)? {
        guard let text = try? HTTPClient(port: port).send("GET", "/metrics").text else { return nil }
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        guard let commits = value("journey_event_commits_total"),
            let requests = value("journey_event_commit_requests_total")
        else { return nil }
        return (commits, requests)
    }

    private func load(_ wrk: String, port: Int, script: String) throws -> HTTPBenchmark.Measure {
        try HTTPBenchmark.bench(
            wrk, port: port, path: "/v1/events", script: script, threads: options.threads,
            connections: options.connections, seconds: options.seconds, timeoutSeconds: 30)
    }

    /// `journey ingest` of `count` weight events for the benchmark's dogs into the service's
    /// own store (the service idle meanwhile): its seconds.
    private func timeIngest(_ journey: String, folder: String, occurredAt: String, name: String, count: Int) throws
        -> Double
    {
        let file = folder + "/ingest-\(name).jsonl"
        var text = ""
        for n in 0..<count {
            let dog = n % HTTPBenchmark.dogs
            text +=
                #"{"event_id":"ingest-\#(name)-\#(n)","user_id":"bench-owner-\#(dog)","type":"weight_saved","dog_id":"bench-\#(dog)","occurred_at":"\#(occurredAt)","payload":{"kg":12.8}}"#
                + "\n"
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journey)
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.arguments = ["ingest", file, "--db", "events.sqlite", "-q"]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let start = Date()
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        guard process.terminationStatus == 0 else {
            throw Problem(description: "journey ingest failed: \(message.prefix(2000))")
        }
        return elapsed
    }
}
