import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine

/// `journey eval`: evaluate a rule, or an ad-hoc jq expression, on JSON input.
enum EvalCommand: Command {
    static let spec = CommandSpec(
        name: "journey eval",
        overview: "Evaluate a rule or a jq expression.",
        discussion: """
            Reads JSON values from --input (default: standard input) and prints each output as
            one compact JSON value per line, like `jq -c`, so `journey eval --expr` can stand in
            for jq in scripts. A rule prints its result under its kind's contract (a rule that
            gives no output prints the kind's empty value, e.g. null). Expressions run in the same
            sandbox as rules: no environment, no files, imports only from <rules>/lib.
            """,
        arguments: [ArgumentSpec(name: "rule", help: "The id of the rule to evaluate.", isOptional: true)],
        options: [
            OptionSpec(
                long: "expr", short: "e", valueName: "jq", help: "Evaluate this jq expression instead of a rule."),
            OptionSpec(
                long: "input", short: "i", valueName: "file", help: "Read input from a file, or - for standard input.",
                defaultValue: "-"),
            OptionSpec(long: "null-input", short: "n", help: "Use null as the single input."),
            OptionSpec(
                long: "variant", valueName: "name", help: "Evaluate this variant of the rule (default: its first)."),
            OptionSpec(long: "fallback", help: "Evaluate the rule's fallback expression."),
            OptionSpec(
                long: "user", valueName: "id",
                help: "Pick the variant of a rule with an experiment by this user's assignment."),
            OptionSpec(long: "dog", valueName: "id", help: "The dog, for experiments that hash dog_id."),
            OptionSpec(
                long: "db", valueName: "path",
                help: "Read kept (sticky) assignments from this store; nothing is written.",
                defaultValue: "./journey.sqlite", problem: CommonOptions.storeLocationProblem),
            OptionSpec(
                long: "now", valueName: "iso8601",
                help: "What `now` returns, e.g. 2026-11-29T09:00:00Z (default: the clock)."),
            OptionSpec(
                long: "timeout", valueName: "duration",
                help:
                    "Stop an evaluation after this long; 0 for no limit (default: the rule's budget, or 5s for --expr)."
            ),
            OptionSpec(
                long: "trace", help: "Show the rule, file, variant, input, outputs, debug messages and time on stderr."),
            OptionSpec(long: "max-input", valueName: "size", help: "Refuse larger input.", defaultValue: "4MiB"),
            CommonOptions.rules, CommonOptions.plugins,
        ],
        customUsage: [
            "journey eval <rule> [--input <file>] [--variant <name>] [--fallback] [--now <iso8601>] [--trace]",
            "journey eval <rule> --user <id> [--dog <id>] [--db <path>] [--input <file>] [--trace]",
            "journey eval --expr <jq> [--input <file>] [-n] [--now <iso8601>] [--trace]",
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let options = try Options(arguments)
        let inputs: [JV]
        do {
            inputs = try readInputs(options, io: io)
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        if let expression = options.expression {
            return evaluateExpression(expression, inputs: inputs, options: options, io: io)
        }
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else { return .ruleErrors }
        if options.subject != nil {
            do {
                let store = try CommonOptions.existingStore(arguments, spec: spec, engine: engine)
                engine.prepare(evaluator, reader: store)
            } catch {
                io.stderr.line("Error: \(error)")
                return .failure
            }
        }
        return evaluateRule(options.rule!, evaluator: evaluator, inputs: inputs, options: options, io: io)
    }

    /// The flags, checked together.
    struct Options {
        var rule: String?
        var expression: String?
        var inputPath: String
        var nullInput: Bool
        var variant: String?
        var fallback: Bool
        var now: Double?
        var timeout: Duration??
        var trace: Bool
        var limits: InputLimits
        var rulesDirectory: String
        /// Whose assignment picks the variant (`--user`, `--dog`).
        var subject: ExperimentSubject?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: EvalCommand.spec) }
            expression = arguments.values["expr"]?.last
            guard arguments.positionals.count <= 1 else {
                throw fail("Unexpected argument '\(arguments.positionals[1])'")
            }
            rule = arguments.positionals.first
            switch (rule, expression) {
            case (nil, nil): throw fail("Missing a rule id or --expr")
            case (.some, .some): throw fail("Give a rule id or --expr, not both")
            default: break
            }
            variant = arguments.values["variant"]?.last
            fallback = arguments.flag("fallback")
            if expression != nil, variant != nil || fallback {
                throw fail("--variant and --fallback apply to rules, not to --expr")
            }
            if variant != nil, fallback { throw fail("Give --variant or --fallback, not both") }
            let user = arguments.values["user"]?.last
            let dog = arguments.values["dog"]?.last
            if user != nil || dog != nil {
                if expression != nil {
                    throw fail("--user and --dog pick a rule's variant; they do not apply to --expr")
                }
                if variant != nil || fallback { throw fail("Give --user or --variant/--fallback, not both") }
                subject = ExperimentSubject(userID: user, dogID: dog)
            }
            inputPath = arguments.value("input", spec: EvalCommand.spec) ?? "-"
            nullInput = arguments.flag("null-input")
            if nullInput, arguments.values["input"] != nil { throw fail("Give --input or --null-input, not both") }
            if let text = arguments.values["now"]?.last {
                guard let seconds = Timestamp.parse(text) else {
                    throw fail(
                        "The value '\(text)' for '--now <iso8601>' is not a date-time with an offset, e.g. 2026-11-29T09:00:00Z"
                    )
                }
                now = seconds
            }
            if let text = arguments.values["timeout"]?.last {
                guard let duration = DurationText.parse(text) else {
                    throw fail("The value '\(text)' for '--timeout <duration>' is not a duration such as 250ms or 5s")
                }
                timeout = .some(duration == .zero ? nil : duration)
            }
            trace = arguments.flag("trace")
            let sizeText = arguments.value("max-input", spec: EvalCommand.spec) ?? "4MiB"
            guard let size = ByteSize.parse(sizeText), size > 0 else {
                throw fail("The value '\(sizeText)' for '--max-input <size>' is not a size such as 4MiB")
            }
            limits = InputLimits(maximumBytes: size)
            rulesDirectory = arguments.value("rules", spec: EvalCommand.spec) ?? "./Rules"
        }
    }

    static func readInputs(_ options: Options, io: CommandIO) throws -> [JV] {
        if options.nullInput { return [JV(JSON.null)] }
        let bytes: [UInt8]
        if options.inputPath == "-" {
            bytes = try io.readStdin()
        } else {
            guard let read = InputFile.read(options.inputPath, limit: options.limits.maximumBytes) else {
                throw CLIError("cannot read input file \(options.inputPath)")
            }
            bytes = read
        }
        do {
            return try JV.parseAll(bytes, limits: options.limits)
        } catch {
            let source = options.inputPath == "-" ? "standard input" : options.inputPath
            throw CLIError("\(source): \(error.message)")
        }
    }

    static func evaluateRule(
        _ id: String, evaluator: RuleEvaluator, inputs: [JV], options: Options, io: CommandIO
    ) -> ExitCode {
        guard let rule = evaluator.ruleSet.rule(id) else {
            do {
                _ = try evaluator.evaluate(id, input: JV(JSON.null))
            } catch {
                io.stderr.line("Error: \(error.message)")
            }
            return .failure
        }
        var status = ExitCode.success
        // A rule that reads a time window (`reads: {within: …}`) is narrowed and evaluated at one `now`.
        let now = rule.evaluationNow(options.now)
        let evaluationOptions = EvaluationOptions(
            variant: options.variant, now: now, timeout: options.timeout ?? rule.budget,
            useFallback: options.fallback, subject: options.subject)
        if let subject = options.subject, let experiment = rule.experiment,
            let chooser = evaluator.variantChooser, options.trace,
            let explanation = try? chooser.explanation(
                of: experiment, subject: subject, now: options.now ?? Date().timeIntervalSince1970)
        {
            io.stderr.line("assignment: \(explanation)")
        }
        for given in inputs {
            // Narrowed as the engine narrows it when the rule declares what it `reads` (the input
            // reader's 256 levels keep it within what JSON takes; never evaluated whole if not).
            let input: JV
            do {
                input = rule.reads == nil ? given : JV(rule.selectingInput(try given.json(), now: now))
            } catch {
                io.stderr.line("Error: the input cannot be narrowed to what rule `\(rule.id)` reads: \(error.message)")
                status = .failure
                continue
            }
            if options.trace {
                var shown = options
                shown.now = now
                io.stderr.write(TraceText.header(rule: rule, options: shown, input: input))
            }
            do {
                let result = try evaluator.evaluate(rule, input: input, options: evaluationOptions)
                let printed = result.value.map { [$0] } ?? result.outputs
                for value in printed { io.stdout.line(value.compactText) }
                if options.trace { io.stderr.write(TraceText.result(result, of: rule)) }
            } catch {
                io.stderr.line("Error: \(error.message) [\(error.code.rawValue)]")
                if let output = error.output { io.stderr.line("  output: \(output.truncatedText(300))") }
                status = .failure
            }
        }
        return status
    }

    static func evaluateExpression(_ source: String, inputs: [JV], options: Options, io: CommandIO) -> ExitCode {
        let library = RuleSetLoader.absolutePath(options.rulesDirectory) + "/lib"
        var isDirectory: ObjCBool = false
        let hasLibrary =
            FileManager.default.fileExists(atPath: library, isDirectory: &isDirectory) && isDirectory.boolValue
        let program: Program
        do {
            program = try Program(source, name: "<expr>", libraryDirectory: hasLibrary ? library : nil)
        } catch {
            for problem in error.problems.isEmpty ? [CompileProblem(message: error.message)] : error.problems {
                let place = problem.line.map { "<expr>:\($0)\(problem.column.map { ":\($0)" } ?? ""): " } ?? ""
                io.stderr.line("Error: \(place)\(problem.message) [\(error.code.rawValue)]")
            }
            return .ruleErrors
        }
        let timeout: Duration? = options.timeout ?? .seconds(5)
        var status = ExitCode.success
        for input in inputs {
            if options.trace { io.stderr.write(TraceText.header(expression: source, options: options, input: input)) }
            let clock = ContinuousClock()
            let started = clock.now
            do {
                let report = try program.run(input, now: options.now ?? Date().timeIntervalSince1970, timeout: timeout)
                {
                    output in
                    let text = output.compactText
                    io.stdout.line(text)
                    if options.trace {
                        io.stderr.line("output:   \(text.count > 300 ? String(text.prefix(300)) + "…" : text)")
                    }
                    return true
                }
                if options.trace {
                    io.stderr.write(
                        TraceText.footer(
                            trace: report.trace, outputs: report.outputCount, duration: clock.now - started))
                }
            } catch let error as JQError {
                io.stderr.line("Error: \(error.message) [\(error.code.rawValue)]")
                status = .failure
            } catch {
                io.stderr.line("Error: \(error)")
                status = .failure
            }
        }
        return status
    }
}

/// A failure to report as `Error: …`.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
