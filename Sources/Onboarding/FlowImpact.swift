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
    /// The kept steps whose element, highlight or trigger change, and of the variant's users
    /// those who have not done them yet (they meet the change) and those who have.
    var edited: [String] = []
    var meetEdited = 0
    var passedEdited = 0
    var startsOn: [String]?
    var removed: [String] = []
    private var variant = ""

    init(
        flow: OnboardingFlow, variant: String, steps: [String], histories: [String: OnboardingFlowProgress]
    ) {
        self.variant = variant
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

    /// Counts the users of the variant who meet the `edited` steps changed, and those who did them.
    mutating func count(edited: [String], startsOn: [String]?, histories: [String: OnboardingFlowProgress]) {
        self.edited = edited
        self.startsOn = startsOn
        guard !edited.isEmpty else { return }
        for progress in histories.values where progress.variant == variant {
            if edited.allSatisfy({ progress.steps[$0] != nil }) { passedEdited += 1 } else { meetEdited += 1 }
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
        var kept: JSONObject = ["version": .string(flow.version)]
        var keptSays: [String] = []
        if !edited.isEmpty {
            kept["edited_steps"] = .array(edited.map(JSON.string))
            kept["meet_changed"] = .number(Double(meetEdited))
            kept["passed_changed"] = .number(Double(passedEdited))
            keptSays.append(
                "Changing how \(Self.list(edited)) \(edited.count == 1 ? "looks or completes" : "look or complete") keeps version \(flow.version): \(Self.users(meetEdited)) of `\(variant)` who started and have not done \(edited.count == 1 ? "it" : "them") yet meet the change; \(Self.users(passedEdited)) who did \(edited.count == 1 ? "it" : "them") do not see \(edited.count == 1 ? "it" : "them") again; new users see the change."
            )
        }
        if let startsOn {
            kept["starts_on"] = .array(startsOn.map(JSON.string))
            keptSays.append(
                "Changing when it starts keeps version \(flow.version): the \(Self.users(started)) who started `\(flow.id)` carry on; a user who has not started it starts on \(Self.list(startsOn))."
            )
        }
        kept["says"] = .string(keptSays.joined(separator: " "))
        return [
            "kept_impact": .object(kept),
            "started_users": .number(Double(started)), "finished_users": .number(Double(finished)),
            "in_progress_users": .number(Double(inProgress)), "other_variant_users": .number(Double(otherVariants)),
            "added_steps": .array(added.map(JSON.string)), "removed_steps": .array(removed.map(JSON.string)),
            "minor_impact": [
                "version": .string(minor), "see_new_steps": .number(Double(seeNewSteps)),
                "see_nothing_new": .number(Double(finished - seeNewSteps)), "carry_on": .number(Double(inProgress)),
                "unaffected": .number(Double(otherVariants)), "says": .string(minorSays),
            ],
            "major_impact": [
                "version": .string(major), "start_again": .number(Double(started)), "says": .string(majorSays),
            ],
        ]
    }
}
