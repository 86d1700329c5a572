import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// Options shared by the challenge commands.
private let challengeOptions = [
    OptionSpec(long: "user", valueName: "id", help: "Show this user's standing too."),
    OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
    OptionSpec(long: "locale", valueName: "code", help: "The texts' locale (default: the user's profile's, else ru)."),
    CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
]

/// `journey challenges`: the challenges open now with progress, deadline and participants.
enum ChallengesCommand: Command {
    static let spec = CommandSpec(
        name: "journey challenges",
        overview: "List the challenges running or starting soon, with progress, deadline and participants.",
        options: challengeOptions)

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        let user = arguments.values["user"]?.last
        let locale = arguments.value("locale", spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existingOrEmpty) { store in
            ChallengeViews.localized(
                try ChallengeViews.list(
                    catalog: ChallengeCatalog(ruleSet: ruleSet), store: store, user: user, now: now),
                texts: try RequestTexts.command(locale: locale, user: user, store: store, catalog: ruleSet.texts))
        } text: { view in
            write(view, io: io)
        }
    }

    private static func write(_ view: JSON, io: CommandIO) {
        let rows = (view["challenges"]?.arrayValue ?? []).map { item -> [String] in
            let me = item["me"]
            let progress: String =
                if case .object(let group)? = item["aggregate"] {
                    "group \(number(group["value"])) (\(number(group["percent"]))%)"
                } else if me?["joined"] == true {
                    "you \(number(me?["current_value"])) (\(number(me?["percent"]))%)"
                } else { "-" }
            return [
                item["id"]?.stringValue ?? "", item["type"]?.stringValue ?? "", item["status"]?.stringValue ?? "",
                "\(number(item["target_value"]))", progress, number(item["participants"]),
                item["ends_at"]?.stringValue ?? "",
            ]
        }
        io.stdout.write(
            TextTable.table(
                header: ["CHALLENGE", "TYPE", "STATUS", "TARGET", "PROGRESS", "PEOPLE", "ENDS"], rows: rows))
    }
}

/// `journey challenge show ID`: one challenge with totals, the user's standing, ranking and feed.
enum ChallengeShowCommand: Command {
    static let spec = CommandSpec(
        name: "journey challenge show",
        overview: "Show a challenge: totals, the user's current value, completion and rank, ranking, feed.",
        arguments: [
            ArgumentSpec(name: "challenge", help: "The challenge's id (a recurring instance: <id>@<start date>).")
        ],
        options: challengeOptions)

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let id = try CommonOptions.positionals(arguments, spec: spec, names: ["the challenge's id"])[0]
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        let catalog = ChallengeCatalog(ruleSet: ruleSet)
        guard let instance = catalog.resolve(id) else {
            var message = "Error: no challenge `\(id)`"
            if let suggestion = closestMatch(to: id, in: catalog.challenges.map(\.id)) {
                message += "; did you mean `\(suggestion)`?"
            }
            io.stderr.line(message + " (see 'journey challenges')")
            return .failure
        }
        let user = arguments.values["user"]?.last
        let locale = arguments.value("locale", spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existingOrEmpty) { store in
            ChallengeViews.localized(
                try ChallengeViews.show(instance, store: store, user: user, now: now, naming: .userIDs),
                texts: try RequestTexts.command(locale: locale, user: user, store: store, catalog: ruleSet.texts))
        } text: { view in
            write(view, id: id, io: io)
        }
    }

    private static func write(_ view: JSON, id: String, io: CommandIO) {
        io.stdout.line(
            "\(view["title"]?.stringValue ?? "") (\(id), \(view["type"]?.stringValue ?? ""), \(view["status"]?.stringValue ?? ""))"
        )
        io.stdout.line(
            "  \(view["starts_at"]?.stringValue ?? "") → \(view["ends_at"]?.stringValue ?? "") (+\(number(view["grace_seconds"]))s grace); target \(number(view["target_value"]))"
        )
        io.stdout.line("  participants: \(number(view["participants"]))")
        if case .object(let group)? = view["aggregate"] {
            io.stdout.line("  group: \(number(group["value"])) (\(number(group["percent"]))%)")
        }
        if case .object(let me)? = view["me"] {
            if me["joined"] == true {
                let completed = me["completed_at"]?.stringValue.map { ", completed \($0)" } ?? ""
                let rank = me["rank"]?.numberValue.map { ", rank \(Int($0))" } ?? ""
                io.stdout.line("  you: \(number(me["current_value"])) (\(number(me["percent"]))%)\(completed)\(rank)")
            } else {
                io.stdout.line("  you: not joined")
            }
        }
        for line in view["ranking"]?.arrayValue ?? [] {
            let who = line["team_id"]?.stringValue ?? line["user_id"]?.stringValue ?? ""
            io.stdout.line("  #\(number(line["rank"])) \(who): \(number(line["value"]))")
        }
        for item in view["feed"]?.arrayValue ?? [] {
            let value = item["value"]?.numberValue.map { " +\(number(.number($0)))" } ?? ""
            io.stdout.line(
                "  · \(item["occurred_at"]?.stringValue ?? "") \(item["user_id"]?.stringValue ?? "") \(item["verb"]?.stringValue ?? "")\(value)"
            )
        }
    }
}

/// `journey challenge digest`: the community challenges' daily digest (once per day).
enum ChallengeDigestCommand: Command {
    static let spec = CommandSpec(
        name: "journey challenge digest",
        overview:
            "Send the community challenges' daily digest (once per challenge and day) and credit completed groups.",
        options: [
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .opened) { store in
            try ChallengeDigest.run(catalog: ChallengeCatalog(ruleSet: ruleSet), store: store, now: now)
        } json: { report in
            [
                "challenges": .array(report.challenges.map(JSON.string)),
                "notifications": .number(Double(report.notifications)),
                "completions": .number(Double(report.completions)),
            ]
        } text: { report in
            io.stdout.line(
                "digest: \(report.challenges.count) challenge\(report.challenges.count == 1 ? "" : "s") (\(report.challenges.joined(separator: ", "))), \(report.notifications) notifications, \(report.completions) completions"
            )
        }
    }
}

/// A JSON number as people write it (see ``CommonOptions/number(_:)``); `-` for none.
private func number(_ value: JSON?) -> String {
    value?.numberValue.map(CommonOptions.number) ?? "-"
}
