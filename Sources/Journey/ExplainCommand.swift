import CommandKit
import Core
import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine

/// `journey explain VIEW DOG [TARGET]`: what a dog's screen shows right now and why — each
/// rule evaluated, its variant and the assignment that chose it, what it was given and gave —
/// then the answer itself, exactly as `journey dog VIEW` gives it.
enum ExplainCommand: Command {
    /// A view it explains: its name, the argument after the dog (if any), how it is computed.
    struct View {
        var view: String
        var target: ArgumentSpec?
        var json: (JourneyViews, String, String?) throws -> JSON
    }

    static var views: [View] {
        [
            View(view: DogTodayCommand.view, target: DogTodayCommand.target, json: DogTodayCommand.json),
            View(view: DogJourneyCommand.view, target: DogJourneyCommand.target, json: DogJourneyCommand.json),
            View(view: DogPathCommand.view, target: DogPathCommand.target, json: DogPathCommand.json),
            View(view: DogPreviewCommand.view, target: DogPreviewCommand.target, json: DogPreviewCommand.json),
            View(view: DogMapCommand.view, target: DogMapCommand.target, json: DogMapCommand.json),
        ]
    }

    static let spec = CommandSpec(
        name: "journey explain",
        overview: "Explain a dog's screen: the rules it evaluated, their variants and assignments, inputs and outputs.",
        discussion: """
            VIEW is one of today, journey, path, map, preview (path takes a BRANCH, preview a
            BLOCK). For a real dog in the store: each rule the view evaluated, in order, with the
            variant it ran (and, for a rule in an experiment, the assignment and why), a summary of
            the input the engine built (--full: all of it), its outputs and debug lines; then the
            view's answer, the same as 'journey dog VIEW DOG --format json'.
            """,
        arguments: [
            ArgumentSpec(name: "view", help: "today, journey, path, preview or map; or event (then USER EVENT_ID)."),
            ArgumentSpec(name: "dog", help: "The dog's id."),
            ArgumentSpec(name: "target", help: "The branch (path) or block (preview)."),
        ],
        options: [
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
            OptionSpec(long: "full", help: "Print each rule's whole input, not a summary."),
            DogViewTexts.option, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let given = arguments.positionals
        guard let name = given.first else { throw UsageError(message: "Missing the view", command: spec) }
        if name == "event" { return try explainEvent(arguments, io: io, engine: engine) }
        guard let view = views.first(where: { $0.view == name }) else {
            throw UsageError(
                message: "Unknown view '\(name)'; views: \(views.map(\.view).joined(separator: ", "))", command: spec)
        }
        let (dog, target) = try DogViewArguments.read(given.dropFirst(), target: view.target, spec: spec)
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else {
            return .ruleErrors
        }
        let full = arguments.flag("full")
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            engine.prepare(evaluator, reader: store)
            let log = DecisionLog(detailed: true)
            evaluator.decisionLog = log
            defer { evaluator.decisionLog = nil }
            let texts = try DogViewTexts.texts(arguments, spec: spec, dog: dog, store: store, evaluator: evaluator)
            let answer = try view.json(
                JourneyViews(store: store, evaluator: evaluator, now: now, texts: texts), dog, target)
            return Explanation(
                view: name, dog: dog, revision: evaluator.ruleSet.revision, answer: answer,
                entries: log.entries.map { Explanation.Step($0, evaluator: evaluator, now: now) })
        } json: { explanation in
            explanation.json(full: full)
        } text: { explanation in
            io.stdout.write(explanation.text(full: full))
        }
    }
}

extension ExplainCommand {
    /// `journey explain event USER EVENT_ID`: the stored event, the outcome it had and what made
    /// each effect (revision, consumer, rules and variants), then what each event rule makes of
    /// it now (today's rules, the dog as it is now; nothing applied).
    fileprivate static func explainEvent(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet)
        throws(UsageError) -> ExitCode
    {
        let given = try CommonOptions.positionals(
            arguments, spec: spec, names: ["the view", "the user's id", "the event's id"])
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else {
            return .ruleErrors
        }
        let full = arguments.flag("full")
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            guard let stored = try store.event(user: given[1], eventID: given[2]) else {
                throw JourneyViewError(
                    code: .unknownEvent, message: "user \(given[1]) has no accepted event \(given[2])")
            }
            engine.prepare(evaluator, reader: store)
            let replay = try EventRuleReplay.run(stored, store: store, evaluator: evaluator)
            let answer: JSON = [
                "type": .string(stored.type), "occurred_at": .string(stored.occurredAtText),
                "received_at": .string(Timestamp.format(stored.receivedAt)),
                "dog_id": stored.dogID.map(JSON.string) ?? .null,
                "payload": stored.payload, "stored_outcome": stored.outcome,
                "stored_by": [
                    "revision": stored.ruleRevision.map(JSON.string) ?? .null, "effects": stored.provenance,
                ],
                "refused_now": replay.refusal.map(JSON.string) ?? .null,
            ]
            return Explanation(
                view: "event", dog: "\(given[1])/\(given[2])", revision: evaluator.ruleSet.revision, answer: answer,
                entries: replay.entries.map { Explanation.Step($0, evaluator: evaluator, now: now) })
        } json: { explanation in
            explanation.json(full: full)
        } text: { explanation in
            io.stdout.write(explanation.text(full: full))
        }
    }

}

/// What `journey explain` found: the rules in evaluation order, then the answer.
struct Explanation {
    struct Step {
        var entry: DecisionLog.Entry
        var location: String?
        /// For a rule in an experiment: the variation and why (`by-branch (assigned, hash 0.91)`).
        var assignment: String?

        /// One evaluation with where its rule is and, for a rule in an experiment, its assignment.
        init(_ entry: DecisionLog.Entry, evaluator: RuleEvaluator, now: Double) {
            self.entry = entry
            location = evaluator.ruleSet.rule(entry.rule)?.location.description
            if let experiment = entry.experiment, let subject = entry.subject, let chooser = evaluator.variantChooser {
                assignment = (try? chooser.explanation(of: experiment, subject: subject, now: entry.now ?? now)) ?? nil
            }
        }
    }

    var view: String
    var dog: String
    var revision: String
    var answer: JSON
    var entries: [Step]

    func json(full: Bool) -> JSON {
        [
            "view": .string(view), "dog": .string(dog), "revision": .string(revision),
            "evaluations": Self.evaluations(entries, full: full), "answer": answer,
        ]
    }

    /// Each evaluation: rule, file, variant, experiment and assignment, input (a summary
    /// unless `full`), outputs, error, trace.
    static func evaluations(_ entries: [Step], full: Bool) -> JSON {
        .array(
            entries.map { step in
                let entry = step.entry
                return [
                    "rule": .string(entry.rule), "file": step.location.map(JSON.string) ?? .null,
                    "variant": .string(entry.variant), "experiment": entry.experiment.map(JSON.string) ?? .null,
                    "assignment": step.assignment.map(JSON.string) ?? .null,
                    "input": full ? (entry.input ?? .null) : .string(Self.summary(entry.input)),
                    "outputs": .array(entry.outputs), "error": entry.message.map(JSON.string) ?? .null,
                    "trace": .array(entry.trace.map { ["kind": .string($0.kind.rawValue), "value": $0.value] }),
                ]
            })
    }

    func text(full: Bool) -> String {
        var text =
            "\(view) for \(dog), rules revision \(revision.prefix(12)): \(entries.count) evaluation\(entries.count == 1 ? "" : "s")\n"
        for (index, step) in entries.enumerated() {
            let entry = step.entry
            text += "\n\(index + 1). \(entry.rule)\(step.location.map { " (\($0))" } ?? "")\n"
            var variant = entry.variant
            if let experiment = entry.experiment {
                variant += " — experiment \(experiment): \(step.assignment ?? "no subject, the default")"
            }
            text += "   variant:  \(variant)\n"
            if full, let input = entry.input {
                text += "   input:\n" + input.prettyText.split(separator: "\n").map { "     \($0)\n" }.joined()
            } else {
                text += "   input:    \(Self.summary(entry.input))\n"
            }
            for output in entry.outputs { text += "   output:   \(output.truncatedText(300))\n" }
            if entry.outputs.isEmpty, entry.error == nil { text += "   output:   (none)\n" }
            if let message = entry.message { text += "   error:    \(message)\n" }
            for line in entry.trace {
                text += "   \(line.kind.rawValue):    ".prefix(13) + line.value.truncatedText(300) + "\n"
            }
        }
        text += "\nanswer:\n\(answer.prettyText)\n"
        return text
    }

    /// The shape and size of an input (`object, 13.2 KiB: dog, branches, blocks`), as
    /// `journey eval --trace` says it.
    static func summary(_ value: JSON?) -> String {
        value.map { ValueSummary.describe(JV($0)) } ?? "-"
    }
}
