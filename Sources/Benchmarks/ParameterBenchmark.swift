import Core
import Foundation
import JQ
import RuleEngine

/// What reading `$params` costs an evaluation, three ways, on the same input (the sandboxed
/// program alone, `Program.run`, as the `jq` column of `journey-bench rules`):
/// - literal: the rule as it was before parameters, each `$params.NAME` written as its value;
/// - compiled in: the engine's way, `$params.NAME` read from a variable bound by `jq_compile_args`
///   (libjq 1.6 inlines it; ``RuleEngine/RuleDefinition/program(for:)``);
/// - from the input: the values as a member of the input (`.params as $params | …`), built once
///   per request with the rest of the input, as a per-evaluation alternative would pass them.
struct ParameterBenchmark {
    var options: BenchmarkOptions
    var ruleSet: RuleSet
    var input: JSON
    var now: Double

    /// The rules (and variant) that read parameters, measured.
    static let measured = [("recommendation", "by-branch"), ("auto_complete.save_weight", "default")]

    /// `JOURNEY_BENCH_PARAMS_ONLY=RULE/WAY` (`recommendation/compiled`; ways `literal`,
    /// `compiled`, `input`) measures that alone, for callgrind to count one way in one process:
    /// `valgrind --tool=callgrind journey-bench rules --only params --rounds 1`, then
    /// `callgrind_annotate --inclusive=yes`: `Program.run`'s instructions over its calls.
    static let single = ProcessInfo.processInfo.environment["JOURNEY_BENCH_PARAMS_ONLY"].map {
        $0.split(separator: "/").map(String.init)
    }

    func run() throws {
        print("\nparameters: what reading $params costs an evaluation (the sandboxed program alone, medians)")
        var rows: [[String]] = []
        for (id, variantName) in Self.measured where Self.single == nil || Self.single?.first == id {
            guard let rule = ruleSet.rule(id), let variant = rule.variant(named: variantName),
                let values = rule.parameters
            else {
                throw RuleBenchmark.Problem(description: "no rule \(id) with parameters and variant \(variantName)")
            }
            let source = variant.expression.source
            let library = ruleSet.libraryDirectory
            let literal = try Program(Self.inlining(values, in: source), name: id, libraryDirectory: library)
            let (compiledSource, constants) = rule.program(for: source)
            let compiled = try Program(compiledSource, name: id, libraryDirectory: library, constants: constants)
            let fromInput = try Program(Self.bindingFromInput(source), name: id, libraryDirectory: library)
            guard case .object(var members) = input else { throw RuleBenchmark.Problem(description: "not an object") }
            let plain = JV(input)
            members["params"] = .object(values)
            let withParams = JV(.object(members))
            let reads = JQVariableReads.find("params", in: source).count

            let budget = rule.budget
            if let single = Self.single, single.count == 2 {
                let (program, given) =
                    switch single[1] {
                    case "literal": (literal, plain)
                    case "compiled": (compiled, plain)
                    default: (fromInput, withParams)
                    }
                let each = measure(options.iterations * options.rounds) {
                    _ = try? program.run(given, now: now, timeout: budget) { _ in true }
                }
                print("\(id) \(single[1]): \(format(each)) µs per evaluation")
                continue
            }
            var samples: [[Double]] = [[], [], []]
            for _ in 0..<options.rounds {
                for (index, (program, given)) in [(literal, plain), (compiled, plain), (fromInput, withParams)]
                    .enumerated()
                {
                    samples[index].append(
                        measure(options.iterations) {
                            _ = try? program.run(given, now: now, timeout: budget) { _ in true }
                        })
                }
            }
            let (l, c, i) = (median(samples[0]), median(samples[1]), median(samples[2]))
            let outputs = try [literal, compiled, fromInput].enumerated().map { index, program in
                try program.outputs(index == 2 ? withParams : plain, now: now, timeout: nil).outputs
            }
            guard outputs[0] == outputs[1], outputs[1] == outputs[2] else {
                throw RuleBenchmark.Problem(description: "\(id): the three programs disagree: \(outputs)")
            }
            rows.append([
                "\(id) (\(variantName))", "\(reads)", format(l), format(c), String(format: "%.3f×", c / l), format(i),
                String(format: "%.3f×", i / l),
            ])
        }
        guard Self.single == nil else { return }
        print(
            table(
                header: [
                    "rule", "$params reads", "literal µs", "compiled in µs", "compiled/literal", "from input µs",
                    "input/literal",
                ], rows: rows))
        print(
            """
            literal: each $params.NAME written as its value (the rule before parameters); compiled in: the
            engine's programs (jq_compile_args; a new value is a new program, compiled with its revision);
            from the input: `.params as $params | …` over an input that carries the values.
            """)
    }

    /// `source` with each `$params.NAME` written as its value in parentheses.
    static func inlining(_ values: JSONObject, in source: String) -> String {
        var text = source
        for (name, value) in values.sorted(by: { $0.key.count > $1.key.count }) {
            text = text.replacingOccurrences(of: "$params.\(name)", with: "(\(value.compactText))")
        }
        return text
    }

    /// `source` reading `$params` from its input: the binding goes after its directives.
    static func bindingFromInput(_ source: String) -> String {
        insertingAfterDirectives(".params as $params |", into: source)
    }

    private func measure(_ iterations: Int, _ body: () -> Void) -> Double { microsecondsPerCall(iterations, body) }

    private func format(_ microseconds: Double) -> String { String(format: "%.2f", microseconds) }
}
