/// The benchmark's flags.
struct BenchmarkOptions {
    var rulesDirectory = "Rules"
    var fixture = "journey/fixtures/q-123.json"
    var iterations = 1000
    var rounds = 15
    var help = false

    static let usage = """
        OVERVIEW: Rule evaluation through the engine beside a plain C loop over libjq.

        USAGE: journey-bench [--rules <dir>] [--fixture <path>] [--iterations <n>] [--rounds <n>]

        OPTIONS:
          --rules <dir>           The rules directory. (default: Rules)
          --fixture <path>        The context, relative to the rules directory. (default: journey/fixtures/q-123.json)
          --iterations <n>        Evaluations per round and side. (default: 1000)
          --rounds <n>            Alternating rounds; medians are reported. (default: 15)
          -h, --help              Show help information.
        """

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    init() {}

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
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
            case "--iterations": iterations = try number(flag)
            case "--rounds": rounds = try number(flag)
            case "-h", "--help": help = true
            default: throw Problem(description: "Unknown option '\(flag)'")
            }
        }
    }
}
