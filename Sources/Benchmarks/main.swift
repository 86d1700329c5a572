import Foundation
import JQ
import JQBaseline
import RuleEngine

// journey-bench: the engine's rule evaluation beside a plain C loop over libjq, in one run.
// Usage: swift run -c release journey-bench [--rules DIR] [--iterations N] [--rounds R]

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
    try RuleBenchmark(options: options).run()
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
