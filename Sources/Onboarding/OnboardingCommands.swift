import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// `journey onboarding show --user U`: the step the app renders now, and each flow's state.
enum OnboardingShowCommand: Command {
    static let spec = CommandSpec(
        name: "journey onboarding show",
        overview: "Show a user's current onboarding step (with its overlay) and each flow's state.",
        options: [
            OptionSpec(long: "user", valueName: "id", help: "The user's id."),
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
            OptionSpec(
                long: "locale", valueName: "code", help: "The texts' locale (default: the user's profile's, else ru)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let user = try CommonOptions.required("user", arguments, spec: spec)
        let now = try CommonOptions.now(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        let view: JSON
        do {
            guard let store = try CommonOptions.requiredStore(arguments, spec: spec, io: io, engine: engine) else {
                return .failure
            }
            let texts: RequestTexts
            if let locale = arguments.value("locale", spec: spec) {
                guard ruleSet.texts.supports(locale) else {
                    io.stderr.line(
                        "Error: \(RequestTexts.UnknownLocale(locale: locale, supported: ruleSet.texts.codes))")
                    return .failure
                }
                texts = RequestTexts(locale: locale, source: "option", catalog: ruleSet.texts)
            } else {
                texts = RequestTexts.choose(
                    profile: try store.userProfile(user), acceptLanguage: nil, catalog: ruleSet.texts)
            }
            view = try OnboardingView.json(
                user: user, flows: OnboardingFlows(ruleSet: ruleSet), store: store, now: now, texts: texts)
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        if CommonOptions.isJSON(arguments, spec: spec) {
            io.stdout.line(view.compactText)
            return .success
        }
        if case .object(let current)? = view["current"], case .object(let step)? = current["step"] {
            let position =
                "\(current["position"]?.numberValue.map { Int($0) } ?? 0)/\(current["of"]?.numberValue.map { Int($0) } ?? 0)"
            io.stdout.line(
                "now: \(current["flow_id"]?.stringValue ?? "") (\(current["variant"]?.stringValue ?? "")), step \(position) `\(step["id"]?.stringValue ?? "")`"
            )
            io.stdout.line("  target:   \(step["target_element_id"]?.stringValue ?? "")")
            io.stdout.line("  tooltip:  \(step["tooltip"]?["text"]?.stringValue ?? "")")
            io.stdout.line("  done by:  \(step["completion_trigger"]?.compactText ?? "")")
            io.stdout.line("  can skip: \(step["can_skip"]?.boolValue == true ? "yes" : "no")")
        } else {
            io.stdout.line("now: no onboarding step to show")
        }
        for flow in view["flows"]?.arrayValue ?? [] {
            let done = flow["completed_step_ids"]?.arrayValue?.count ?? 0
            let skipped = flow["skipped_step_ids"]?.arrayValue?.count ?? 0
            io.stdout.line(
                "\(flow["flow_id"]?.stringValue ?? ""): \(flow["status"]?.stringValue ?? "")"
                    + (flow["variant"]?.stringValue.map { " (\($0)), \(done) done, \(skipped) skipped" } ?? ""))
        }
        return .success
    }
}

/// `journey funnel onboarding`: per step, how many reached, completed and skipped it, and the
/// median time it took: where users drop out. In total over a flow's variants, or per variant.
enum FunnelCommand: Command {
    static let spec = CommandSpec(
        name: "journey funnel onboarding",
        overview: "Show the onboarding funnel: reached, completed, skipped and median time per step.",
        discussion: """
            One table per flow: the total over its variants, steps matched by id (a step only some
            variants have is counted over their users, stands where they have it, and VARIANTS names
            them); with --by-variant, one table per variant. `stuck` counts users who reached a step
            and neither completed nor skipped it; the step where the most of those who reached it are
            stuck is marked as the biggest drop-off.
            """,
        options: [
            OptionSpec(long: "flow", valueName: "id", help: "Only this flow (default: every flow)."),
            OptionSpec(long: "by-variant", help: "One table per variant (default: the total over the variants)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        guard let loaded = CommonOptions.loadRules(arguments, spec: spec, io: io, engine: engine),
            let ruleSet = loaded.ruleSet
        else {
            return .ruleErrors
        }
        var flows = OnboardingFlows(ruleSet: ruleSet).flows
        if let only = arguments.values["flow"]?.last {
            flows = flows.filter { $0.id == only }
            guard !flows.isEmpty else {
                let known = OnboardingFlows(ruleSet: ruleSet).flows.map(\.id)
                io.stderr.line("Error: no onboarding flow `\(only)`; flows: \(known.joined(separator: ", "))")
                return .failure
            }
        }
        let byVariant = arguments.flag("by-variant")
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) { store in
            try flows.map { try OnboardingFunnel(flow: $0, store: store) }
        } json: { funnels in
            ["funnels": .array(funnels.map { $0.json(byVariant: byVariant) })]
        } text: { funnels in
            for funnel in funnels {
                if byVariant { writeVariants(funnel, io: io) } else { writeTotal(funnel, io: io) }
            }
        }
    }

    private static let columns = ["REACHED", "COMPLETED", "SKIPPED", "STUCK", "MEDIAN", ""]

    private static func cells(_ step: OnboardingFunnel.Step, drop: String?) -> [String] {
        [
            "\(step.reached)", "\(step.completed)", "\(step.skipped)", "\(step.stuck)",
            step.medianDurationSeconds.map { String(format: "%.1fs", $0) } ?? "-",
            step.id == drop ? "← biggest drop-off" : "",
        ]
    }

    private static func writeVariants(_ funnel: OnboardingFunnel, io: CommandIO) {
        for variant in funnel.variants {
            io.stdout.line(
                "\(funnel.flow) (\(funnel.key)), variant \(variant.name): \(variant.started) started, \(variant.finished) finished"
            )
            let drop = funnel.biggestDropOff(in: variant)?.id
            let rows = variant.steps.map { [$0.id] + cells($0, drop: drop) }
            io.stdout.write(TextTable.table(header: ["STEP"] + columns, rows: rows))
            io.stdout.line("")
        }
    }

    private static func writeTotal(_ funnel: OnboardingFunnel, io: CommandIO) {
        let total = funnel.total
        io.stdout.line(
            "\(funnel.flow) (\(funnel.key)), all variants (\(total.variants.joined(separator: ", "))): \(total.started) started, \(total.finished) finished"
        )
        let drop = OnboardingFunnel.biggestDropOff(among: total.steps)?.id
        let rows = total.steps.map { step in
            let having = total.stepVariants[step.id] ?? []
            return [step.id, having.count == total.variants.count ? "all" : having.joined(separator: ", ")]
                + cells(step, drop: drop)
        }
        io.stdout.write(TextTable.table(header: ["STEP", "VARIANTS"] + columns, rows: rows))
        io.stdout.line("")
    }
}
