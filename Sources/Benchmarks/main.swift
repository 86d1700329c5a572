import Foundation

// journey-bench: the engine beside a baseline measured in the same run.
//   journey-bench rules   rule evaluation vs a plain C loop over libjq
//   journey-bench ingest  the ingest path vs plain prepared-statement inserts
//   journey-bench views   Today and a branch path: reads, rules, assembly vs raw libjq
//   journey-bench habits  habit statistics (20 trackers, 3 years) vs raw libjq on the same facts
//   journey-bench challenges  a community challenge, 100k participants, 1M events, progress reads
//   journey-bench preview  the impact preview of 10k dogs and 100k events vs the live work it repeats
//   journey-bench http    journey serve under wrk vs a trivial responder on the same adapter
//   journey-bench slow    /healthz under 5,000 slow connections, connection guards off vs on
//   journey-bench gates   a publish's gates in this process vs in a child process
//   journey-bench events  POST /v1/events (10 and 100 a request) vs journey ingest, same store
//   journey-bench postgres  ingest and POST /v1/events on PostgreSQL (1–3 instances) vs SQLite

var options = BenchmarkOptions()
do {
    options = try BenchmarkOptions(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n\(BenchmarkOptions.usage)".utf8))
    exit(64)
}
if options.help {
    print(BenchmarkOptions.usage)
    exit(0)
}
do {
    switch options.benchmark {
    case .rules: try RuleBenchmark(options: options).run()
    case .ingest: try IngestBenchmark(options: options).run()
    case .views: try ViewBenchmark(options: options).run()
    case .http: try HTTPBenchmark(options: options).run()
    case .habits: try HabitBenchmark(options: options).run()
    case .challenges: try ChallengeBenchmark(options: options).run()
    case .preview: try PreviewBenchmark(options: options).run()
    case .postgres: try PostgresBenchmark(options: options).run()
    case .slow: try SlowConnectionBenchmark(options: options).run()
    case .gates: try GatesBenchmark(options: options).run()
    case .events: try EventsServiceBenchmark(options: options).run()
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
