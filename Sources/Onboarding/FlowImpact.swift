import Core

/// What a change of a flow's steps does to the users who started it, for each version choice:
/// a minor version shows users who finished only the new steps (those in the middle carry on);
/// a major version starts the flow again for everyone who started it, in any variant.
struct FlowImpact {
    var started = 0
    var finished = 0
    var inProgress = 0
    var otherVariants = 0
    /// Users who finished and meet a step they have not done (the new ones).
    var seeNewSteps = 0
    var added: [String] = []
    var removed: [String] = []

    init(
        flow: OnboardingFlow, variant: String, steps: [String], histories: [String: OnboardingFlowProgress]
    ) {
        let old = flow.variant(named: variant)?.steps.map(\.id) ?? []
        added = steps.filter { !old.contains($0) }
        removed = old.filter { !steps.contains($0) }
        for progress in histories.values {
            started += 1
            guard progress.variant == variant else {
                otherVariants += 1
                continue
            }
            if old.allSatisfy({ progress.steps[$0] != nil }) {
                finished += 1
                if steps.contains(where: { progress.steps[$0] == nil }) { seeNewSteps += 1 }
            } else {
                inProgress += 1
            }
        }
    }

    private static func users(_ count: Int) -> String { count == 1 ? "1 user" : "\(count) users" }

    private static func list(_ ids: [String]) -> String { ids.map { "`\($0)`" }.joined(separator: ", ") }

    /// The answer's `impact`: the counts, and for each choice its version and what it does.
    func json(flow: OnboardingFlow, variant: String, minor: String, major: String) -> JSON {
        let newSteps =
            added.isEmpty ? "no new step" : (added.count == 1 ? "the new step " : "the new steps ") + Self.list(added)
        var minorSays =
            "Finished users see only the new steps: \(seeNewSteps) of the \(Self.users(finished)) who finished `\(variant)` will see \(newSteps)"
        minorSays += finished - seeNewSteps > 0 ? "; \(finished - seeNewSteps) of them see nothing new." : "."
        minorSays +=
            " \(Self.users(inProgress)) in the middle of it \(inProgress == 1 ? "carries" : "carry") on from where they are."
        if otherVariants > 0 { minorSays += " \(Self.users(otherVariants)) of other variants see no change." }
        if !removed.isEmpty { minorSays += " Nobody sees \(Self.list(removed)) any more." }
        let majorSays =
            "Everyone starts again: all \(Self.users(started)) who started `\(flow.id)` (any variant) see it from the first step, as new users do; its funnel counts version \(major) apart."
        return [
            "started_users": .number(Double(started)), "finished_users": .number(Double(finished)),
            "in_progress_users": .number(Double(inProgress)), "other_variant_users": .number(Double(otherVariants)),
            "added_steps": .array(added.map(JSON.string)), "removed_steps": .array(removed.map(JSON.string)),
            "minor": [
                "version": .string(minor), "see_new_steps": .number(Double(seeNewSteps)),
                "see_nothing_new": .number(Double(finished - seeNewSteps)), "carry_on": .number(Double(inProgress)),
                "unaffected": .number(Double(otherVariants)), "says": .string(minorSays),
            ],
            "major": ["version": .string(major), "start_again": .number(Double(started)), "says": .string(majorSays)],
        ]
    }
}
