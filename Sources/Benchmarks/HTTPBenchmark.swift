import Core
import Foundation
import HTTP
import JQ
import RuleEngine

#if canImport(Glibc)
    import Glibc
#endif

/// `journey serve` under `wrk` on loopback, beside a trivial libmicrohttpd responder built from
/// the same adapter (the ceiling of this HTTP stack), measured in the same run: requests/s and
/// p99 latency of `GET /v1/dogs/{dog_id}/today` (with the view cache, and without it) and of
/// `POST /v1/events` with batches of 10 events.
struct HTTPBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    struct Measure {
        var requestsPerSecond: Double
        var p99Milliseconds: Double
        var errors: Int
        var p50Milliseconds = 0.0
    }

    func run() throws {
        let setup = try ServiceBenchmarkSetup(name: "http", rulesDirectory: options.rulesDirectory)
        defer { setup.remove() }
        let (wrk, journey, folder) = (setup.wrk, setup.journey, setup.folder)
        let script = folder + "/events.lua"
        try Self.eventsScript(occurredAt: Timestamp.format(Date().timeIntervalSince1970 - 120))
            .write(toFile: script, atomically: true, encoding: .utf8)

        let workers = options.workers
        print(
            "journey-bench http: wrk -t\(options.threads) -c\(options.connections) -d\(options.seconds)s on loopback,")
        print(
            "\(workers) worker process\(workers == 1 ? "" : "es") (the trivial responder: \(workers) polling threads);")
        print("\(options.rounds) alternating rounds, medians; access log on, to a file\n")

        // The trivial responder: the same adapter, one polling thread per worker, a fixed answer.
        let trivialSocket = try ListeningSocket(host: "127.0.0.1", port: 0)
        let trivial = try (0..<workers).map { _ in
            try HTTPServer(socket: trivialSocket) { _ in .json(["status": "ok"]) }
        }
        defer {
            for server in trivial { server.stop(grace: .zero) }
            trivialSocket.close()
        }

        let cached = try Service(journey: journey, folder: folder, name: "cached", workers: workers, extra: [])
        let uncached = try Service(
            journey: journey, folder: folder, name: "uncached", workers: workers, extra: ["--view-cache", "0"])
        defer {
            cached.stop()
            uncached.stop()
        }
        let dog = "/v1/dogs/q-123/today"
        var results: [String: [Measure]] = [:]
        for _ in 0..<options.rounds {
            results["trivial", default: []].append(try bench(wrk, port: trivialSocket.port, path: "/"))
            results["today", default: []].append(try bench(wrk, port: cached.port, path: dog))
            results["today, no cache", default: []].append(try bench(wrk, port: uncached.port, path: dog))
            results["events ×10", default: []].append(
                try bench(wrk, port: cached.port, path: "/v1/events", script: script))
        }

        let ceiling = median(results["trivial"]!.map(\.requestsPerSecond))
        print("target                         requests/s     p99 ms   of trivial   errors")
        for name in ["trivial", "today", "today, no cache", "events ×10"] {
            let measures = results[name]!
            let rate = median(measures.map(\.requestsPerSecond))
            let p99 = median(measures.map(\.p99Milliseconds))
            let label =
                name == "trivial"
                ? "trivial responder (GET /)"
                : name == "events ×10"
                    ? "POST /v1/events (10 events)" : "GET /today" + (name == "today" ? "" : " (view cache off)")
            print(
                label.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%11.0f %10.2f %11.0f%% %8d", rate, p99, rate / ceiling * 100,
                        measures.map(\.errors).reduce(0, +)))
        }
        let events = median(results["events ×10"]!.map(\.requestsPerSecond)) * 10
        print(String(format: "\nevents through POST /v1/events: %.0f/s", events))
    }

    /// Runs wrk once; parses requests/s, the 99th percentile and errors.
    private func bench(_ wrk: String, port: Int, path: String, script: String? = nil) throws -> Measure {
        try Self.bench(
            wrk, port: port, path: path, script: script, threads: options.threads, connections: options.connections,
            seconds: options.seconds)
    }

    /// Runs wrk once with `threads` and `connections` for `seconds`; parses requests/s, the
    /// 99th percentile and errors.
    static func bench(
        _ wrk: String, port: Int, path: String, script: String?, threads: Int, connections: Int, seconds: Int,
        timeoutSeconds: Int? = nil
    ) throws -> Measure {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        var arguments = [
            "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency",
        ]
        if let script { arguments += ["-s", script] }
        // wrk counts an answer slower than its timeout (2 s) as an error, not in the latencies.
        if let timeoutSeconds { arguments += ["--timeout", "\(timeoutSeconds)s"] }
        process.arguments = arguments + ["http://127.0.0.1:\(port)\(path)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let rate = Self.number(after: "Requests/sec:", in: text) else {
            throw Problem(description: "wrk said:\n\(text)")
        }
        func percentile(_ label: String) -> Double {
            guard
                let line = text.split(separator: "\n").first(where: {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix(label)
                })
            else { return 0 }
            return Self.milliseconds(String(line.split(separator: " ").last ?? ""))
        }
        let p99 = percentile("99%")
        var errors = 0
        if let line = text.split(separator: "\n").first(where: { $0.contains("Non-2xx or 3xx responses:") }) {
            errors += Int(line.split(separator: " ").last ?? "") ?? 0
        }
        if let line = text.split(separator: "\n").first(where: { $0.contains("Socket errors:") }) {
            errors += line.split(separator: ",").compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        }
        return Measure(
            requestsPerSecond: rate, p99Milliseconds: p99, errors: errors, p50Milliseconds: percentile("50%"))
    }

    private static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        return Double(text[range.upperBound...].prefix { $0 != "\n" }.trimmingCharacters(in: .whitespaces))
    }

    /// `1.23ms`, `850.00us`, `1.02s` → milliseconds.
    private static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("us") { return (Double(text.dropLast(2)) ?? 0) / 1000 }
        if text.hasSuffix("ms") { return Double(text.dropLast(2)) ?? 0 }
        if text.hasSuffix("s") { return (Double(text.dropLast()) ?? 0) * 1000 }
        return Double(text) ?? 0
    }

    /// How many dogs the events spread over (each registered, with a journey, one in progress).
    static let dogs = 200

    /// A wrk script posting batches of 10 `weight_saved` events for random dogs, every id unique
    /// (seeded per thread: wrk's Lua would otherwise repeat its numbers, and duplicates are cheap).
    /// `salt` tells apart the ids of several wrk processes started in the same second.
    /// `perRequest`: events in each request; `delayMilliseconds`: how long each connection waits
    /// on average before its next request (wrk's `delay`), to hold the load under the maximum
    /// rate. The wait is drawn from an exponential distribution, as between the requests of
    /// independent users: with a fixed wait the connections fall into step and arrive in bursts
    /// of all of them at once, and the latency measured is that of the bursts (p50 16 ms in one
    /// run and 68 ms in the next at the same rate, where random waits gave 13 and 17 ms).
    static func eventsScript(
        occurredAt: String, salt: String = "", perRequest: Int = 10, delayMilliseconds: Double? = nil
    ) -> String {
        """
        local counter = 0
        local prefix = ""
        local threads = 0
        setup = function(thread)
          threads = threads + 1
          thread:set("id", threads)
        end
        init = function(args)
          prefix = "\(salt)" .. tostring(os.time()) .. "-" .. tostring(id)
          math.randomseed(os.time() * 100 + id)
        end
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        request = function()
          local events = {}
          for i = 1, \(perRequest) do
            counter = counter + 1
            local dog = math.random(0, \(dogs - 1))
            events[i] = string.format('{"event_id":"bench-%s-%d","user_id":"bench-owner-%d","type":"weight_saved",' ..
              '"dog_id":"bench-%d","occurred_at":"\(occurredAt)","payload":{"kg":12.8}}', prefix, counter, dog, dog)
          end
          return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(events, ",") .. ']}')
        end
        """ + (delayMilliseconds.map { Self.randomDelay(meanMilliseconds: $0) } ?? "")
    }

    /// wrk's `delay` function: a wait drawn from an exponential distribution of the given mean
    /// (`1 - math.random()` is in (0, 1], so the logarithm is finite).
    static func randomDelay(meanMilliseconds: Double) -> String {
        "\ndelay = function() return math.floor(-math.log(1 - math.random()) * \(meanMilliseconds) + 0.5) end\n"
    }

    /// One `journey serve` on its own store, seeded with Q's events and the benchmark's dogs.
    final class Service {
        let process = Process()
        let port: Int

        /// `database`: the `--db` (default `<name>.sqlite` in `folder`); `seed`: whether to post
        /// Q's events and the benchmark's dogs (once per store).
        init(
            journey: String, folder: String, name: String, workers: Int, extra: [String], database: String? = nil,
            seed: Bool = true
        ) throws {
            process.executableURL = URL(fileURLWithPath: journey)
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.arguments =
                [
                    "serve", "--port", "0", "--workers", String(workers), "--db", database ?? "\(name).sqlite",
                    "--access-log", "\(name)-access.log", "--state-dir", "\(name).state",
                ] + extra
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var text = ""
            var found: Int?
            while found == nil {
                let data = errors.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
                if let range = text.range(of: "listening on http://127.0.0.1:") {
                    found = Int(text[range.upperBound...].prefix { $0.isNumber })
                }
            }
            guard let found else { throw Problem(description: "journey serve did not start: \(text)") }
            port = found
            if seed { try self.seed() }
        }

        /// Q's events from examples/events.jsonl, moved to the last hours.
        private func seed() throws {
            let lines = try String(contentsOfFile: "examples/events.jsonl", encoding: .utf8)
            var latest = 0.0
            var events: [JSONObject] = []
            for line in lines.split(separator: "\n") {
                guard case .object(let event) = try JSONParser().parse(String(line)) else { continue }
                latest = max(latest, event["occurred_at"]?.stringValue.flatMap(Timestamp.parse) ?? 0)
                events.append(event)
            }
            let shift = Date().timeIntervalSince1970 - 3600 - latest
            var moved: [JSON] = events.map { event in
                var event = event
                if let at = event["occurred_at"]?.stringValue.flatMap(Timestamp.parse) {
                    event["occurred_at"] = .string(Timestamp.format(at + shift))
                }
                return .object(event)
            }
            // The dogs the posted events go to: registered, each with the weight block started.
            let at = Timestamp.format(Date().timeIntervalSince1970 - 1800)
            for index in 0..<HTTPBenchmark.dogs {
                let dog = JSON.string("bench-\(index)")
                let owner = JSON.string("bench-owner-\(index)")
                moved.append([
                    "event_id": .string("bench-reg-\(index)"), "user_id": owner, "type": "dog_registered",
                    "dog_id": dog, "occurred_at": .string(at),
                    "payload": [
                        "name": .string("Dog \(index)"), "age_range": "4-8m", "breed": "beagle", "timezone": "UTC",
                        "metrics": [
                            "bond": .number(Double(40 + index % 30)), "recall": .number(Double(20 + index % 40)),
                        ],
                    ],
                ])
                moved.append([
                    "event_id": .string("bench-start-\(index)"), "user_id": owner, "type": "block_started",
                    "dog_id": dog, "occurred_at": .string(at), "payload": ["block_id": "weight-baseline"],
                ])
            }
            let client = HTTPClient(port: port)
            for start in stride(from: 0, to: moved.count, by: 500) {
                let batch = Array(moved[start..<min(start + 500, moved.count)])
                let response = try client.send(
                    "POST", "/v1/events", headers: ["Content-Type": "application/json"],
                    body: Array(JSON.object(["events": .array(batch)]).compactText.utf8))
                guard response.status == 200, !response.text.contains("\"status\":\"rejected\"") else {
                    throw Problem(description: "seeding failed: \(response.text.prefix(2000))")
                }
            }
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }
}
