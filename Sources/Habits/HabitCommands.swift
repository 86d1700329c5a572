import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// `journey habits stats --user U`: the statistics screen, from the `habit_stat` rules.
enum HabitStatsCommand: Command {
    static let spec = CommandSpec(
        name: "journey habits stats",
        overview: "Show a user's habit statistics (best period, perfect days, trackers completed, average).",
        discussion: """
            Each statistic is a habit_stat rule in Rules/habits (its id without `habits.` is the JSON
            key). With no check-ins the statistics are empty; otherwise every one is shown.
            """,
        options: [
            OptionSpec(long: "user", valueName: "id", help: "The user's id."),
            HabitCommandTexts.option, CommonOptions.database, CommonOptions.rules, CommonOptions.plugins,
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let user = try CommonOptions.required("user", arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let evaluator = loaded.evaluator
        else {
            return .ruleErrors
        }
        let locale = arguments.value("locale", spec: spec)
        let catalog = evaluator.ruleSet.texts
        var chosen: RequestTexts?
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            let texts = try RequestTexts.command(locale: locale, user: user, store: store, catalog: catalog)
            chosen = texts
            return HabitStatistics.titled(
                try HabitStatistics.json(user: user, store: store, evaluator: evaluator), texts: texts)
        } text: { stats in
            write(stats, user: user, texts: chosen, io: io)
        }
    }

    private static func write(_ stats: JSON, user: String, texts: RequestTexts?, io: CommandIO) {
        guard stats["has_data"] == true else {
            io.stdout.line("No statistics yet: \(user) has no check-ins.")
            return
        }
        let hidden: Set = ["has_data", "degraded", "title", "titles", "locale"]
        for (key, value) in stats.objectValue ?? [:] where !hidden.contains(key) {
            let label = stats["titles"]?[key]?.stringValue ?? key
            let number = value.numberValue ?? 0
            let text =
                key == "best_period" && texts != nil
                ? texts!(HabitDay.Keys.trackedDays, ["count": .number(number)])
                : texts?.rules.format(number) ?? CommonOptions.number(number)
            io.stdout.line("\(label.padding(toLength: 20, withPad: " ", startingAt: 0)) \(text)")
        }
    }
}

/// `journey habits day --user U --date D`: the trackers of one day.
enum HabitDayCommand: Command {
    static let spec = CommandSpec(
        name: "journey habits day",
        overview: "Show a user's trackers for one date, filtered and searched as the app's day screen.",
        options: [
            OptionSpec(long: "user", valueName: "id", help: "The user's id."),
            OptionSpec(long: "date", valueName: "yyyy-mm-dd", help: "The local date (default: today, UTC)."),
            OptionSpec(
                long: "filter", valueName: "filter",
                help: "Which trackers (today: the current date's, whatever --date says).", defaultValue: "all",
                allowedValues: HabitDay.Filter.allCases.map(\.rawValue)),
            OptionSpec(long: "search", valueName: "text", help: "Only trackers whose name contains this."),
            HabitCommandTexts.option, CommonOptions.database, CommonOptions.rules, CommonOptions.plugins,
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let user = try CommonOptions.required("user", arguments, spec: spec)
        var selected: CivilDate?
        if let text = arguments.values["date"]?.last {
            guard let parsed = CivilDate(text) else {
                throw UsageError(message: "The value '\(text)' for '--date <yyyy-mm-dd>' is not a date", command: spec)
            }
            selected = parsed
        }
        let filter = HabitDay.Filter(rawValue: arguments.value("filter", spec: spec) ?? "all") ?? .all
        let date = HabitDay.date(for: filter, selected: selected, today: CivilDate(utc: Date().timeIntervalSince1970))
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        let locale = arguments.value("locale", spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            try HabitDay.json(
                user: user, date: date, filter: filter, search: arguments.values["search"]?.last, store: store,
                texts: try RequestTexts.command(locale: locale, user: user, store: store, catalog: ruleSet.texts))
        } text: { view in
            write(view, date: date, filter: filter, io: io)
        }
    }

    private static func write(_ view: JSON, date: CivilDate, filter: HabitDay.Filter, io: CommandIO) {
        let trackers = view["trackers"]?.arrayValue ?? []
        io.stdout.line(
            "\(date) (\(date.weekday)), \(filter.rawValue): \(trackers.count) tracker\(trackers.count == 1 ? "" : "s")")
        for tracker in trackers {
            let mark = tracker["done"] == true ? "[x]" : tracker["scheduled"] == true ? "[ ]" : " - "
            let emoji = tracker["emoji"]?.stringValue.map { $0 + " " } ?? ""
            let pin = tracker["pinned"] == true ? " (pinned)" : ""
            io.stdout.line(
                "\(mark) \(emoji)\(tracker["name"]?.stringValue ?? "")\(pin) · \(tracker["schedule_text"]?.stringValue ?? "")"
            )
        }
    }
}

/// The `--locale` option of the habit commands.
enum HabitCommandTexts {
    static let option = OptionSpec(
        long: "locale", valueName: "code", help: "The texts' locale (default: the user's profile's, else ru).")
}
