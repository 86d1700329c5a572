import JQ
import RuleEngine

/// `journey check`: the onboarding step ids that rules name as string literals exist. A rule
/// names one with a plain literal compared (`==`, `!=`) with a path ending in `step_id` or
/// `step.id`, or as the value of `step_id` in an object it builds. A flow's own trigger rules
/// name steps of that flow; other rules, a step of any flow. Checked when there are flows.
enum StepReferenceChecks {
    static func run(_ flows: [OnboardingFlow], in context: DocumentCheckContext) {
        guard !flows.isEmpty else { return }
        var flowOfRule: [String: OnboardingFlow] = [:]
        for flow in flows {
            for step in flow.variants.flatMap(\.steps) { flowOfRule[step.ruleID] = flow }
        }
        let every = unique(flows.flatMap(stepIDs))
        for literal in context.ruleLiterals where namesStep(literal.use) {
            let flow = flowOfRule[literal.rule.id]
            let known = flow.map(stepIDs) ?? every
            guard !known.contains(literal.value) else { continue }
            context.unknownName(
                literal, code: "unknown_step", what: "step id",
                notIn: flow.map { "a step of flow `\($0.id)`" } ?? "a step of any flow", known: known)
        }
    }

    static func namesStep(_ use: JQLiteral.Use) -> Bool {
        switch use {
        case .compared(let path): path.last == "step_id" || path.suffix(2) == ["step", "id"]
        case .objectValue(let key): key == "step_id"
        case .result, .arrayElement: false
        }
    }

    private static func stepIDs(_ flow: OnboardingFlow) -> [String] {
        unique(flow.variants.flatMap(\.steps).map(\.id))
    }

    private static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }
}
