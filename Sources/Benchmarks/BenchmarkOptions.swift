/// The benchmark's flags.
struct BenchmarkOptions {
    enum Benchmark: String {
        case rules, ingest, views, http, habits, challenges, preview, postgres, slow, gates, events
    }

    var benchmark = Benchmark.rules
    var rulesDirectory = "Rules"
    var fixture = "journey/fixtures/q-123.json"
    var iterations = 1000
    var rounds = 15
    var events = 100_000
    var participants = 100_000
    /// challenges: walks sent last that happened before the goal was reached.
    var late = 0
    var dogs = 10_000
    var scaling = false
    var withoutFeatures = false
    var cores: Int? = nil
    var workers = 2
    var threads = 2
    var connections = 32
    var seconds = 5
    var help = false
    var postgres: String?
    /// events: another build's `journey` executable, measured beside this one in the same run.
    var baseline: String?
    /// rules: the one rule measured (nil: every rule of ``RuleBenchmark/rules``).
    var only: String?

    static let usage = """
        OVERVIEW: The engine beside a baseline measured in the same run.

        USAGE: journey-bench rules [--rules <dir>] [--fixture <path>] [--only <rule>] [--iterations <n>] [--rounds <n>]
               journey-bench ingest [--rules <dir>] [--events <n>] [--rounds <n>] [--scaling] [--without-features]
               journey-bench views [--rules <dir>] [--iterations <n>] [--rounds <n>] [--only <locale>]
               journey-bench habits [--rules <dir>] [--iterations <n>] [--rounds <n>]
               journey-bench challenges [--rules <dir>] [--participants <n>] [--events <n>] [--late <n>]
               journey-bench preview [--rules <dir>] [--dogs <n>] [--events <n>]
               journey-bench http [--rules <dir>] [--workers <n>] [--threads <n>] [--connections <n>] [--seconds <n>] [--rounds <n>]
               journey-bench slow [--connections <n>] [--seconds <n>] [--workers <n>]
               journey-bench gates [--rules <dir>] [--rounds <n>]
               journey-bench events [--rules <dir>] [--events <n>] [--workers <n>] [--threads <n>] [--connections <n>] [--seconds <n>] [--rounds <n>] [--baseline <journey>]
               journey-bench postgres --postgres <url> [--events <n>] [--workers <n>] [--connections <n>] [--seconds <n>] [--rounds <n>] [--baseline <journey>]

        SUBCOMMANDS:
          rules                   Rule evaluation through the engine beside a plain C loop over libjq.
          ingest                  The ingest path (three consumers) beside plain prepared-statement inserts
                                  of the same rows into the same schema.
          views                   Today and a branch path for a dog with 300 records: store reads, rule
                                  evaluation, assembly, beside the raw cost of the same rules; the same
                                  views in each locale (ru beside en); every text rendered per locale.
          habits                  Habit statistics for 20 trackers with 3 years of check-ins: store reads,
                                  facts and the habit_stat rules, beside raw libjq on the same facts;
                                  computed and kept; a check-in on trackers 30, 400, 1,000 days old.
          challenges              A community challenge with 100,000 participants and 1,000,000 events
                                  through every consumer, beside the ingest workload in the same run, and
                                  the cost of reading its progress as participants grow.
          preview                 The impact preview of an unchanged candidate for 10,000 dogs active in the
                                  week and its 100,000 events, beside the live work it repeats (ingesting
                                  the events once, every dog's decisions once) in the same run.
          http                    journey serve under wrk (GET /today, POST /v1/events ×10) beside a
                                  trivial responder built from the same libmicrohttpd adapter.
          slow                    5,000 slow connections (a header byte every 5 s) from 127.0.0.2 while
                                  /healthz is probed from 127.0.0.1, with the connection guards off beside
                                  the defaults.
          gates                   A publish's gates on the bundled rules in this process beside a child
                                  process, as the service runs them.
          events                  POST /v1/events with 10 and 100 events a request beside journey ingest on
                                  the same SQLite store, and the latency of 10-event requests at 50% and
                                  90% of the service's maximum rate.
          postgres                journey ingest into PostgreSQL beside SQLite (whole process, the ingest's
                                  own time, CPU) and beside a raw COPY and INSERT of the same rows, and POST
                                  /v1/events through 1, 2 and 3 instances on one PostgreSQL database beside
                                  one SQLite service; with the date, the builds and the load.

        OPTIONS:
          --rules <dir>           The rules directory. (default: Rules)
          --fixture <path>        rules: the context, relative to the rules directory.
                                  (default: journey/fixtures/q-123.json)
          --only <rule>           rules: measure this rule alone (for callgrind), or `params`: what reading
                                  $params costs, three ways. (default: all four, then params)
                                  views: render the five views in this locale alone, --iterations times
                                  (for callgrind: --toggle-collect='*LocaleViewBenchmark*render*').
          --iterations <n>        rules: evaluations per round and side. (default: 1000)
          --rounds <n>            Alternating rounds; medians are reported. (default: 15 for rules, 3 for ingest)
          --events <n>            ingest, challenges, preview, events: events per run. (default: 100000;
                                  challenges 1000000; events 50000 per journey ingest)
          --participants <n>      challenges: participants. (default: 100000)
          --late <n>              challenges: of the events, the last n happened in the first minutes, before
                                  the goal was reached (they arrive late). (default: 0)
          --dogs <n>              preview: dogs active in the window. (default: 10000)
          --scaling               ingest: also run 10k, 100k and 1M events to show how cost grows.
          --without-features      ingest: leave out the run with every feature's consumers (one engine
                                  run and its baseline per round, e.g. to count them with callgrind).
          --cores <n>             ingest: threads computing pure consumers. (default: the machine's cores)
          --workers <n>           http: worker processes. (default: 2)
          --threads <n>           http: wrk threads. (default: 2)
          --connections <n>       http: wrk connections. (default: 32)
          --seconds <n>           http: seconds per wrk run. (default: 5)
          --postgres <url>        postgres: the server to use (scripts/bench postgres starts one).
          --baseline <journey>    events, postgres: another build's journey executable (main's, say), run on
                                  stores of its own beside this build's in the same rounds: before/after.
          -h, --help              Show help information.
        """

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    init() {}

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        if let first = rest.first, let benchmark = Benchmark(rawValue: first) {
            self.benchmark = benchmark
            rest = rest.dropFirst()
            if benchmark == .ingest { rounds = 3 }
            if benchmark == .views { rounds = 7; iterations = 200 }
            if benchmark == .http { rounds = 3 }
            if benchmark == .postgres { rounds = 1 }
            if benchmark == .habits { rounds = 7; iterations = 50 }
            if benchmark == .challenges { events = 1_000_000 }
            if benchmark == .gates { rounds = 5 }
            if benchmark == .events { rounds = 3; events = 50_000 }
        }
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw Problem(description: "Missing value for '\(flag)'") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n > 0 else {
                throw Problem(description: "'\(text)' is not a positive number for '\(flag)'")
            }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--rules": rulesDirectory = try value(flag)
            case "--fixture": fixture = try value(flag)
            case "--only": only = try value(flag)
            case "--iterations": iterations = try number(flag)
            case "--rounds": rounds = try number(flag)
            case "--events": events = try number(flag)
            case "--participants": participants = try number(flag)
            case "--late": late = try number(flag)
            case "--dogs": dogs = try number(flag)
            case "--scaling": scaling = true
            case "--without-features": withoutFeatures = true
            case "--cores": cores = try number(flag)
            case "--workers": workers = try number(flag)
            case "--threads": threads = try number(flag)
            case "--connections": connections = try number(flag)
            case "--seconds": seconds = try number(flag)
            case "--postgres": postgres = try value(flag)
            case "--baseline": baseline = try value(flag)
            case "-h", "--help": help = true
            default: throw Problem(description: "Unknown option '\(flag)'")
            }
        }
    }
}
