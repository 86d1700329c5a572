import Core
import FeatureKit
import JQ
import RuleEngine
import Store

/// What the app renders for a user's onboarding: the current step with its overlay, and each
/// flow's state.
public enum OnboardingView {
    /// The text of how many steps of the flow follow the current one.
    public static let stepsLeftKey = "onboarding.steps_left"

    /// `{user_id, current, flows}`: `current` is the step to render (null when there is none),
    /// `flows` says for each flow whether it is not started, in progress or finished, with the
    /// completed and skipped step ids. A timer step whose time ran out by `now` counts as done.
    /// Texts are in `texts`' locale: the flows' titles, the step's tooltip and page texts, and
    /// `steps_left_text` ("Осталось 3 шага").
    public static func json(
        user: String, flows: OnboardingFlows, store: any StoreReader, now: Double, texts: RequestTexts
    ) throws -> JSON {
        var current: JSON = .null
        var list: [JSON] = []
        var finished = Set<String>()
        for flow in flows.flows {
            var object: JSONObject = ["flow_id": .string(flow.id), "key": .string(flow.key)]
            object["title"] = flow.title.map { .string($0.rendered(texts)) } ?? .null
            object["version"] = .string(flow.version)
            guard let progress = try store.onboardingProgress(user: user, flow: flow.key) else {
                object["status"] = .string("not_started")
                object["waits_for"] =
                    flow.after.map { finished.contains($0) ? .null : .string($0) } ?? .null
                list.append(.object(object))
                continue
            }
            let steps = (flow.variant(named: progress.variant) ?? flow.variants[0]).steps
            var done = progress.steps
            var shownAt: Double?
            var step: OnboardingStep?
            // Timers that ran out count as done (the next event records it).
            var previousEnd: Double?
            for candidate in steps where done[candidate.id] == nil {
                let shown = progress.shownAt[candidate.id] ?? previousEnd
                if case .timer(let seconds) = candidate.trigger, let shown, now - shown >= seconds {
                    done[candidate.id] = OnboardingStepProgress(completedAt: shown + seconds, skipped: false)
                    previousEnd = shown + seconds
                    continue
                }
                step = candidate
                shownAt = shown
                break
            }
            object["variant"] = .string(progress.variant)
            object["started_at"] = .string(Timestamp.format(progress.startedAt))
            object["completed_step_ids"] = .array(
                steps.filter { done[$0.id]?.skipped == false }.map { .string($0.id) })
            object["skipped_step_ids"] = .array(steps.filter { done[$0.id]?.skipped == true }.map { .string($0.id) })
            if let step {
                object["status"] = .string("in_progress")
                if current == .null {
                    let index = steps.firstIndex { $0.id == step.id } ?? 0
                    current = .object([
                        "flow_id": .string(flow.id), "variant": .string(progress.variant),
                        "version": .string(flow.version), "step": step.json(texts),
                        "position": .number(Double(index + 1)), "of": .number(Double(steps.count)),
                        "steps_left": .number(Double(steps.count - index - 1)),
                        "steps_left_text": .string(
                            texts(Self.stepsLeftKey, ["count": .number(Double(steps.count - index - 1))])),
                        "shown_at": shownAt.map { .string(Timestamp.format($0)) } ?? .null,
                    ])
                }
            } else {
                object["status"] = .string("finished")
                finished.insert(flow.id)
            }
            list.append(.object(object))
        }
        return .object(["user_id": .string(user), "current": current, "flows": .array(list)])
    }
}
