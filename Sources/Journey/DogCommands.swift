import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// `journey dog …`: a dog's Dog Journey screens, read from the store.
protocol DogViewCommand: Command {
    static var view: String { get }
    static var overview: String { get }
    /// The positional after the dog id (`BLOCK`, `BRANCH`), if the view takes one.
    static var target: ArgumentSpec? { get }
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON
    static func text(_ view: JSON) -> String
}

extension DogViewCommand {
    static var target: ArgumentSpec? { nil }

    static var spec: CommandSpec {
        CommandSpec(
            name: "journey dog \(view)", overview: overview,
            arguments: [ArgumentSpec(name: "dog", help: "The dog's id.")] + (target.map { [$0] } ?? []),
            options: [
                CommonOptions.database, CommonOptions.rules, CommonOptions.plugins,
                OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
                DogViewTexts.option, CommonOptions.format,
            ])
    }

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let (dog, targetID) = try DogViewArguments.read(arguments.positionals[...], target: target, spec: spec)
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else {
            return .ruleErrors
        }
        let locale = arguments.value("locale", spec: spec)
        let catalog = evaluator.ruleSet.texts
        if let locale, !catalog.supports(locale) {
            io.stderr.line("Error: \(RequestTexts.UnknownLocale(locale: locale, supported: catalog.codes))")
            return .failure
        }
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            engine.prepare(evaluator, store: store)
            let texts = try DogViewTexts.texts(arguments, spec: spec, dog: dog, store: store, evaluator: evaluator)
            let views = JourneyViews(store: store, evaluator: evaluator, now: now, texts: texts) {
                io.stderr.line("warning: \($0)")
            }
            return try json(views, dog: dog, target: targetID)
        } text: { view in
            io.stdout.write(text(view))
        }
    }
}

/// The `--locale` of the dog views: the texts a view is written in (its catalog texts too).
enum DogViewTexts {
    static let option = OptionSpec(
        long: "locale", valueName: "code", help: "The texts' locale (default: the dog's owner's profile's, else ru).")

    static func texts(
        _ arguments: ParsedArguments, spec: CommandSpec, dog: String, store: any StoreReader, evaluator: RuleEvaluator
    ) throws -> RequestTexts {
        let owner = try store.dog(dog)?.userID
        return try RequestTexts.command(
            locale: arguments.value("locale", spec: spec), user: owner, store: store, catalog: evaluator.ruleSet.texts)
    }
}

enum DogTodayCommand: DogViewCommand {
    static let view = "today"
    static let overview = "Today: the recommended block, a Continue card, and progress per branch."
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON { try views.today(dog) }

    static func text(_ view: JSON) -> String {
        var text = "Today for \(view["dog"]?["name"]?.stringValue ?? "")\n"
        if let card = view["recommended"], card != .null {
            text += "\nRecommended: \(card["title"]?.stringValue ?? "") (\(card["branch_id"]?.stringValue ?? ""))\n"
            text += "  \(card["why"]?.stringValue ?? "")\n"
            if let next = card["next_step"]?.stringValue {
                text += "  Continue · next: \(next)\n"
            } else {
                text += "  \(card["start"]?.stringValue ?? "")\n"
            }
            if let offer = card["offer"]?.stringValue { text += "  \(offer)\n" }
        } else {
            text += "\nNothing to recommend: every open block is locked or done.\n"
        }
        if let card = view["continue"], card != .null {
            text += "\nContinue: \(card["title"]?.stringValue ?? "") — next: \(card["next_step"]?.stringValue ?? "")\n"
        }
        text += "\n" + progressBars(view["branches"]?.arrayValue ?? [])
        return text
    }
}

enum DogJourneyCommand: DogViewCommand {
    static let view = "journey"
    static let overview = "The journey: blocks done of all, each branch's progress, the recommended branch."
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON { try views.journey(dog) }

    static func text(_ view: JSON) -> String {
        var text = "Journey of \(view["dog"]?["name"]?.stringValue ?? ""): \(view["label"]?.stringValue ?? "")\n\n"
        text += progressBars(view["branches"]?.arrayValue ?? [])
        let insights = view["insights"]?.arrayValue ?? []
        if !insights.isEmpty {
            text += "\nInsights:\n"
            for card in insights {
                text += "  · \(card["label"]?.stringValue ?? ""): \(card["text"]?.stringValue ?? "")\n"
            }
        }
        return text
    }
}

enum DogPathCommand: DogViewCommand {
    static let view = "path"
    static let overview = "A branch's path: its blocks in order with their status, and the Now node."
    static let target: ArgumentSpec? = ArgumentSpec(name: "branch", help: "The branch's id (health, mind, lifestyle).")
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON {
        try views.path(dog, branch: target ?? "")
    }

    static func text(_ view: JSON) -> String {
        var text =
            "\(view["title"]?.stringValue ?? "") — \(view["completed"].map { JSON.format(number: $0.numberValue ?? 0) } ?? "0") of \(view["total"].map { JSON.format(number: $0.numberValue ?? 0) } ?? "0")\n"
        for node in view["nodes"]?.arrayValue ?? [] {
            let marker = node["now"] == true ? "▶" : " "
            let status = node["status"]?.stringValue ?? ""
            let progress = node["in_progress"] == true ? " (in progress)" : ""
            text +=
                "\(marker) \(status.padding(toLength: 12, withPad: " ", startingAt: 0)) \(node["title"]?.stringValue ?? "") [\(node["block_id"]?.stringValue ?? "")]\(progress)\n"
        }
        return text
    }
}

enum DogPreviewCommand: DogViewCommand {
    static let view = "preview"
    static let overview = "A block's preview: what you learn, why it matters for this dog, the action."
    static let target: ArgumentSpec? = ArgumentSpec(name: "block", help: "The block's id.")
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON {
        try views.preview(dog, block: target ?? "")
    }

    static func text(_ view: JSON) -> String {
        var text = "\(view["title"]?.stringValue ?? "") — \(view["status"]?.stringValue ?? "")\n"
        for line in view["text_lines"]?.arrayValue ?? [] { text += "  \(line.stringValue ?? "")\n" }
        let finishFirst = view["finish_first"]?.arrayValue ?? []
        if !finishFirst.isEmpty {
            text +=
                "  Locked: finish \(finishFirst.compactMap { $0["title"]?.stringValue }.joined(separator: " and ")) first\n"
        } else {
            text += "  \(view["start"]?.stringValue ?? "")\n"
        }
        if let offer = view["offer"]?.stringValue { text += "  \(offer)\n" }
        return text
    }
}

enum DogMapCommand: DogViewCommand {
    static let view = "map"
    static let overview = "The overview map: every block with coordinates along three lines (read only)."
    static func json(_ views: JourneyViews, dog: String, target: String?) throws -> JSON { try views.map(dog) }

    static func text(_ view: JSON) -> String {
        var text = "\(view["caption"]?.stringValue ?? "")\n"
        for line in view["lines"]?.arrayValue ?? [] {
            text += "\(line["title"]?.stringValue ?? "")\n"
            for node in line["nodes"]?.arrayValue ?? [] {
                let x = JSON.format(number: node["x"]?.numberValue ?? 0)
                let y = JSON.format(number: node["y"]?.numberValue ?? 0)
                text +=
                    "  (\(x), \(y)) \(node["now"] == true ? "▶ " : "")\(node["title"]?.stringValue ?? "") — \(node["status"]?.stringValue ?? "")\n"
            }
        }
        return text
    }
}

/// `Health & body      ███░░░░  3 of 7`
func progressBars(_ branches: [JSON]) -> String {
    var text = ""
    for branch in branches {
        let completed = Int(branch["completed"]?.numberValue ?? 0)
        let total = Int(branch["total"]?.numberValue ?? 0)
        let bar = String(repeating: "█", count: completed) + String(repeating: "░", count: max(total - completed, 0))
        let label = (branch["title"]?.stringValue ?? "").padding(toLength: 18, withPad: " ", startingAt: 0)
        text +=
            "\(label) \(bar)  \(completed) of \(total)\(branch["is_recommended"] == true ? "  · Recommended" : "")\n"
    }
    return text
}

/// The positionals of a dog view: the dog's id, then the view's target (a branch, a block) when
/// it takes one; a usage error names the first missing or extra one.
enum DogViewArguments {
    static func read(_ positionals: ArraySlice<String>, target: ArgumentSpec?, spec: CommandSpec) throws(UsageError)
        -> (dog: String, target: String?)
    {
        let given = Array(positionals)
        let expected = target == nil ? 1 : 2
        guard given.count == expected else {
            let missing = given.isEmpty ? "the dog's id" : "the \(target?.name ?? "") id"
            throw UsageError(
                message: given.count < expected ? "Missing \(missing)" : "Unexpected argument '\(given[expected])'",
                command: spec)
        }
        return (given[0], given.count > 1 ? given[1] : nil)
    }
}
