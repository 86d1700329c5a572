import CommandKit
import Core
import FeatureKit
import Foundation
import Locales
import RuleEngine

/// `journey texts [PREFIX]`: every text key with each locale's text and what uses it.
enum TextsCommand: Command {
    static let spec = CommandSpec(
        name: "journey texts",
        overview: "List the text keys of Rules/locales with each locale's text and what uses each.",
        discussion: """
            Every text the engine sends is a key with one text per locale (Rules/locales/*.yaml, the
            default locale first). "used by" names the rule files that mention the key and the
            features whose code renders it. Give a PREFIX (onboarding.) to list only those keys;
            'journey texts render KEY' shows one rendered as a user reads it.
            """,
        arguments: [ArgumentSpec(name: "prefix", help: "Only the keys that start with this.", isOptional: true)],
        options: [CommonOptions.rules, CommonOptions.plugins, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let prefix = try CommonOptions.positionals(arguments, spec: spec, names: ["prefix"], optional: 1).first
        guard let ruleSet = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine)?.ruleSet else {
            return .ruleErrors
        }
        let catalog = ruleSet.texts
        let keys = catalog.keys.filter { prefix == nil || $0.hasPrefix(prefix!) }
        let uses = TextUses(ruleSet: ruleSet, features: engine)
        if CommonOptions.isJSON(arguments, spec: spec) {
            let list: [JSON] = keys.map { key in
                var texts: JSONObject = [:]
                for locale in catalog.locales {
                    texts[locale.locale] = locale.texts[key].map { .string($0.message.source) } ?? .null
                }
                return [
                    "key": .string(key), "texts": .object(texts),
                    "limit": catalog.locales.compactMap { $0.texts[key]?.limit }.min().map { .number(Double($0)) }
                        ?? .null,
                    "used_by": .array(uses.of(key).map(JSON.string)),
                ]
            }
            io.stdout.line(
                JSON.object(["locales": .array(catalog.codes.map(JSON.string)), "keys": .array(list)]).compactText)
            return .success
        }
        for key in keys {
            let limit = catalog.locales.compactMap { $0.texts[key]?.limit }.min()
            io.stdout.line(key + (limit.map { " (limit \($0))" } ?? ""))
            for locale in catalog.locales {
                io.stdout.line("  \(locale.locale)  \(locale.texts[key]?.message.source ?? "(missing)")")
            }
            let users = uses.of(key)
            io.stdout.line("  used by: " + (users.isEmpty ? "nothing yet" : users.joined(separator: ", ")))
        }
        io.stdout.line(
            "\(keys.count) \(keys.count == 1 ? "key" : "keys") in \(catalog.codes.count) locales (\(catalog.codes.joined(separator: ", ")); default \(catalog.defaultLocale))"
        )
        return .success
    }
}

/// `journey texts render KEY --locale L [--arg name=value]…`: one text as a user reads it.
enum TextsRenderCommand: Command {
    static let spec = CommandSpec(
        name: "journey texts render",
        overview: "Print one text rendered in a locale: plural forms chosen, numbers in the locale's digits.",
        discussion: """
            Give each placeholder the text reads with --arg NAME=VALUE: a VALUE that is a number is
            written in the locale's digits (8500 → 8 500 in ru) and chooses plural forms by the
            locale's CLDR rules; any other VALUE is text. A key the locale lacks is rendered from
            the default locale, as the service does.
            """,
        arguments: [ArgumentSpec(name: "key", help: "The text's key (onboarding.first_launch.button).")],
        options: [
            OptionSpec(long: "locale", valueName: "code", help: "The locale (default: the default locale)."),
            OptionSpec(long: "arg", valueName: "name=value", help: "A placeholder's value; give one per placeholder."),
            CommonOptions.rules, CommonOptions.plugins,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let key = try CommonOptions.positionals(arguments, spec: spec, names: ["key"])[0]
        var given: [String: TextArgument] = [:]
        for pair in arguments.values["arg"] ?? [] {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError(message: "--arg takes NAME=VALUE, got '\(pair)'", command: spec)
            }
            let value = String(pair[pair.index(after: equals)...])
            given[String(pair[..<equals])] = Double(value).map(TextArgument.number) ?? .text(value)
        }
        guard let ruleSet = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine)?.ruleSet else {
            return .ruleErrors
        }
        let catalog = ruleSet.texts
        let locale = arguments.value("locale", spec: spec) ?? catalog.defaultLocale
        guard catalog.supports(locale) else {
            io.stderr.line("Error: \(RequestTexts.UnknownLocale(locale: locale, supported: catalog.codes))")
            return .failure
        }
        guard let text = catalog.locale(locale)?.texts[key] ?? catalog.locales.first?.texts[key] else {
            var message = "no text has the key `\(key)`"
            if let suggestion = closestMatch(to: key, in: catalog.keys) { message += "; did you mean `\(suggestion)`?" }
            io.stderr.line("Error: \(message)")
            return .failure
        }
        let wanted = Set(text.message.arguments)
        let missing = wanted.subtracting(given.keys).sorted()
        let unknown = Set(given.keys).subtracting(wanted).sorted()
        guard missing.isEmpty, unknown.isEmpty else {
            var problems: [String] = []
            if !missing.isEmpty { problems.append("give " + missing.map { "--arg \($0)=…" }.joined(separator: " ")) }
            if !unknown.isEmpty {
                problems.append("the text has no " + unknown.map { "{\($0)}" }.joined(separator: ", "))
            }
            io.stderr.line(
                "Error: `\(key)` reads \(TextUses.list(wanted.sorted())): \(problems.joined(separator: "; "))")
            return .failure
        }
        io.stdout.line(catalog.render(key, locale: locale, given))
        return .success
    }
}

/// What uses each key: the rule files that mention it (file:line) and the features whose code
/// renders it.
struct TextUses {
    private var uses: [String: [String]] = [:]

    init(ruleSet: RuleSet, features: FeatureSet) {
        let keys = Set(ruleSet.texts.keys)
        for path in ruleSet.files where !path.contains("/locales/") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for match in line.matches(of: #/[a-z][a-z0-9_]*(\.[a-z0-9_]+)+/#) where keys.contains(String(match.0)) {
                    uses[String(match.0), default: []].append("\(path):\(index + 1)")
                }
            }
        }
        for feature in features.features {
            for use in feature.texts { uses[use.key, default: []].append("\(feature.name): \(use.usedBy)") }
            for use in feature.textUses(in: ruleSet) { uses[use.key, default: []].append(use.usedBy) }
        }
    }

    func of(_ key: String) -> [String] { uses[key] ?? [] }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "no placeholder" : names.map { "{\($0)}" }.joined(separator: ", ")
    }
}
