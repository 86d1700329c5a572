import Core
import Features
import Foundation
import JQ
import JQBaseline
import Journey
import RuleEngine

/// Measures the bundled rules through the engine's public API and through the C baseline,
/// alternating rounds so that both sides see the same machine noise; prints medians and ratios.
struct RuleBenchmark {
    var options: BenchmarkOptions

    /// The rules measured, with the block laid into the context for the auto-complete ones.
    static let rules = [
        "recommendation", "auto_complete.course_started", "auto_complete.save_weight", "auto_complete.add_vaccine",
    ]
    static let now = Timestamp.parse("2026-11-29T09:00:00Z")!

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let (ruleSet, evaluator) = try options.loadRules()
        let fixturePath = options.rulesDirectory + "/" + options.fixture
        guard let data = FileManager.default.contents(atPath: fixturePath) else {
            throw Problem(description: "cannot read \(fixturePath)")
        }
        guard case .object(var context) = try JV.parse(String(decoding: data, as: UTF8.self)).json() else {
            throw Problem(description: "\(fixturePath) is not a JSON object")
        }
        context["block"] = [
            "id": "impulse-control-basics", "action": ["type": "start_course", "course_id": "impulse-101"],
        ]
        let json = JSON.object(context)
        let text = json.compactText
        let library = ruleSet.libraryDirectory

        print("journey-bench: rule evaluation, engine vs plain C loop over libjq (same programs, same input)")
        print("context: \(ByteCount.format(text.utf8.count)) JSON (\(options.fixture) + a block)")
        print("\(options.iterations) evaluations per round and side, \(options.rounds) alternating rounds, medians\n")

        let parseC = median((0..<options.rounds).map { _ in jqb_ns_per_parse(text, Int(options.iterations)) / 1000 })
        let convert = median(
            (0..<options.rounds).map { _ in
                measure(options.iterations) { _ = JV(json) }
            })
        let parseEngine = median(
            (0..<options.rounds).map { _ in
                measure(options.iterations) { _ = try? JV.parse(text) }
            })
        print("building the input once per request:")
        print("  jv_parse of the JSON text (C)      \(format(parseC)) µs")
        print("  JV.parse (UTF-8 check + jv_parse)  \(format(parseEngine)) µs")
        print("  JV(JSON) built from our JSON value \(format(convert)) µs\n")

        let header = [
            "rule", "C µs", "jq µs", "(a) µs", "(a)/C", "(r) µs", "(r)/C", "C+parse µs", "(b) µs", "(b)/C",
            "compile ms",
            "KiB/program",
        ]
        var rows: [[String]] = []
        var ratiosA: [Double] = []
        if options.only == "params" {
            try ParameterBenchmark(options: options, ruleSet: ruleSet, input: json, now: Self.now).run()
            return
        }
        if let only = options.only, !Self.rules.contains(only) {
            throw Problem(
                description:
                    "--only: `\(only)` is not measured; the rules: \(Self.rules.joined(separator: ", ")), or `params`")
        }
        for id in Self.rules where options.only == nil || options.only == id {
            guard let rule = ruleSet.rule(id) else { throw Problem(description: "no rule \(id)") }
            // The program as the engine compiles it ($params.NAME read from constants), for both sides.
            let (source, constants) = rule.program(for: rule.defaultVariant.expression.source)
            let input = JV(json)
            let evaluationOptions = EvaluationOptions(now: Self.now)
            _ = try evaluator.evaluate(rule, input: input, options: evaluationOptions)  // warm up, and prove it runs

            let sandboxed = try Program(source, name: id, libraryDirectory: library, constants: constants)
            let rawSource = pinningNow(source, at: Self.now)
            let arguments = JSON.object(constants).compactText
            var cPrebuilt: [Double] = []
            var sandboxedRuns: [Double] = []
            var enginePrebuilt: [Double] = []
            var engineRead: [Double] = []
            // (r): read as libjq gave it where the kind accepts its outputs at a glance (an
            // auto-complete's callers count the evidence); other kinds' callers take JSON.
            let readsValues = rule.kind.acceptsOutput != nil
            var cText: [Double] = []
            var engineText: [Double] = []
            for _ in 0..<options.rounds {
                var outputs = 0
                cPrebuilt.append(
                    jqb_ns_per_eval_prebuilt(rawSource, library, arguments, text, options.iterations, &outputs) / 1000)
                guard cPrebuilt.last! >= 0 else { throw Problem(description: "the C baseline cannot compile \(id)") }
                sandboxedRuns.append(
                    measure(options.iterations) {
                        _ = try? sandboxed.run(input, now: Self.now, timeout: rule.budget) { _ in true }
                    })
                enginePrebuilt.append(
                    measure(options.iterations) {
                        _ = try? evaluator.evaluate(rule, input: input, options: evaluationOptions)
                    })
                if readsValues {
                    engineRead.append(
                        measure(options.iterations) {
                            _ = try? evaluator.evaluate(id, input: input, options: evaluationOptions, reading: \.count)
                        })
                }
                cText.append(
                    jqb_ns_per_eval_from_text(rawSource, library, arguments, text, options.iterations, &outputs) / 1000)
                engineText.append(
                    measure(options.iterations) {
                        guard let parsed = try? JV.parse(text) else { return }
                        _ = try? evaluator.evaluate(rule, input: parsed, options: evaluationOptions)
                    })
            }
            let (c, a, ct, b) = (median(cPrebuilt), median(enginePrebuilt), median(cText), median(engineText))
            let read = engineRead.isEmpty ? nil : median(engineRead)
            ratiosA.append((read ?? a) / c)
            let compileMilliseconds = jqb_ms_per_compile(source, library, arguments, 5)
            rows.append([
                id, format(c), format(median(sandboxedRuns)), format(a), ratio(a / c), read.map(format) ?? "—",
                read.map { ratio($0 / c) } ?? "—", format(ct), format(b),
                ratio(b / ct),
                String(format: "%.1f", compileMilliseconds),
                String(format: "%.0f", try memoryPerProgram(source, library, constants)),
            ])
        }
        print(table(header: header, rows: rows))
        print(
            """

            (a) the engine's RuleEvaluator.evaluate on an input already built as a JV (built once per request,
                as the engine does): sandbox prelude, watchdog, input and output contracts, outputs as JSON.
            (r) the same read as the rule's callers read it, for kinds whose outputs are accepted as libjq gives
                them (RuleEvaluator.evaluate(_:input:options:reading:); an auto-complete's evidence is counted,
                not converted); — where the callers take JSON, as in (a).
            (b) the same, parsing the JSON text first (engine: UTF-8 check + jv_parse; C: jv_parse).
            C   the raw rule text compiled once, jq_start/jq_next on a pre-built jv, outputs freed.
            jq  the sandboxed program alone (Program.run): prelude, watchdog, outputs freed, no contracts.
            compile ms: one jq_compile (libjq 1.6 relinks its builtins every time); KiB/program: heap per
                compiled sandboxed program (mallinfo2, averaged over 20 copies).
            """)
        let worst = ratio(ratiosA.max() ?? 0)
        print("worst ratio to C, each rule as its callers read it ((r), else (a)): \(worst) (goal: within 1.15×)")
        if options.only == nil {
            try ParameterBenchmark(options: options, ruleSet: ruleSet, input: json, now: Self.now).run()
        }
    }

    /// Microseconds per call of `body`, over `iterations` calls.
    private func measure(_ iterations: Int, _ body: () -> Void) -> Double { microsecondsPerCall(iterations, body) }

    /// Heap bytes per compiled program, in KiB.
    private func memoryPerProgram(_ source: String, _ library: String, _ constants: JSONObject) throws -> Double {
        let copies = 20
        var programs: [Program] = []
        let before = jqb_heap_in_use()
        for _ in 0..<copies {
            programs.append(try Program(source, name: "bench", libraryDirectory: library, constants: constants))
        }
        let after = jqb_heap_in_use()
        withExtendedLifetime(programs) {}
        return Double(after - before) / Double(copies) / 1024
    }

    private func format(_ microseconds: Double) -> String { String(format: "%.1f", microseconds) }
    private func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
}
