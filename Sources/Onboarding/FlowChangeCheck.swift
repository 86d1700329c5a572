import RuleEngine

/// A flow's steps may change only with its version: users who finished a flow, and the
/// funnel's past numbers, belong to the version they saw.
///
/// "The steps" are, per variant, the ordered list of step ids (adding, removing, renaming or
/// reordering a step); a tooltip's wording may change within a version.
enum FlowChangeCheck {
    static func diagnostics(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic] {
        let before = OnboardingFlows(ruleSet: parent)
        return OnboardingFlows(ruleSet: candidate).flows.compactMap { flow in
            guard let old = before[flow.id], old.version == flow.version else { return nil }
            let was = outline(old)
            let now = outline(flow)
            let changed = Set(was.keys).union(now.keys).sorted().filter { was[$0] != now[$0] }
            guard !changed.isEmpty else { return nil }
            let changes = changed.map { variant in
                "\(variant): \(describe(was[variant])) → \(describe(now[variant]))"
            }
            return Diagnostic(
                code: "flow_changed_without_version",
                "flow `\(flow.id)` changes its steps (\(changes.joined(separator: "; "))) but keeps version \(flow.version): raise `version` (a minor shows returning users only the new steps; a new major restarts the flow for everyone)",
                at: flow.location)
        }
    }

    private static func outline(_ flow: OnboardingFlow) -> [String: [String]] {
        Dictionary(flow.variants.map { ($0.name, $0.steps.map(\.id)) }, uniquingKeysWith: { first, _ in first })
    }

    private static func describe(_ steps: [String]?) -> String {
        steps.map { $0.isEmpty ? "no steps" : $0.joined(separator: ", ") } ?? "no variant"
    }
}
