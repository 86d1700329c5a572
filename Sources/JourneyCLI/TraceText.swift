import Core
import JQ
import RuleEngine

/// What `journey eval --trace` prints on stderr.
enum TraceText {
    static func header(rule: RuleDefinition, options: EvalCommand.Options, input: JV) -> String {
        var text = "rule:     \(rule.id) (kind \(rule.kind.name))\n"
        text += "file:     \(rule.location)\n"
        // A rule with an experiment: the variant evaluated is printed with the result (the
        // assignment of --user/--dog may choose one other than the default).
        if rule.experiment == nil, options.fallback {
            text += "variant:  fallback\n"
        }
        if let reads = rule.reads {
            let since = options.now.flatMap(reads.since(now:)).map { ", since \(Timestamp.format($0))" } ?? ""
            text += "reads:    \(reads) (the input is narrowed to these\(since))\n"
        }
        text += common(options: options, input: input)
        let budget = options.timeout.map { $0.map(DurationText.format) ?? "none" } ?? DurationText.format(rule.budget)
        text += "budget:   \(budget)\n"
        return text
    }

    static func header(expression: String, options: EvalCommand.Options, input: JV) -> String {
        let oneLine = expression.split(separator: "\n").joined(separator: " ")
        var text = "expr:     \(oneLine.count > 120 ? String(oneLine.prefix(120)) + "…" : oneLine)\n"
        text += common(options: options, input: input)
        return text
    }

    private static func common(options: EvalCommand.Options, input: JV) -> String {
        var text = "input:    \(summary(input))\n"
        text += "now:      \(options.now.map(Timestamp.format) ?? "the clock")\n"
        return text
    }

    static func result(_ result: RuleResult, of rule: RuleDefinition) -> String {
        var text = ""
        if let experiment = rule.experiment {
            text +=
                "variant:  \(result.variant) (experiment \(experiment); variants: \(rule.variants.map(\.name).joined(separator: ", ")))\n"
        }
        for output in result.outputs { text += "output:   \(output.truncatedText(300))\n" }
        if let value = result.value { text += "result:   \(value.truncatedText(300))\n" }
        if let error = result.primaryError { text += "fallback: used because \(error.message)\n" }
        text += footer(trace: result.trace, outputs: result.outputs.count, duration: result.duration)
        return text
    }

    static func footer(trace: [TraceEntry], outputs: Int, duration: Duration) -> String {
        var text = ""
        for entry in trace { text += "\(entry.kind.rawValue):    ".prefix(10) + entry.value.truncatedText(300) + "\n" }
        text += "outputs:  \(outputs)\n"
        text += "time:     \(TestCommand.milliseconds(duration)) ms\n"
        return text
    }

    /// `object, 15.1 KiB: dog, branches, blocks, records, events`
    static func summary(_ input: JV) -> String { ValueSummary.describe(input) }
}
