import Core
import Engine
import JQ
import RuleEngine
import Store

/// The onboarding engine in the ingest path: for each event from the app's screens, decides
/// whether the current step of each of the user's flows is done (its `onboarding_trigger`
/// rule), starts flows, records when steps are shown, and handles skips.
///
/// Screens publish `ui_*` events (`ui_tap` with `element_id`, `ui_swipe` with `direction`,
/// `ui_element_visible` with `element_id`, or any other `ui_*` event a custom trigger reads);
/// `app_*` events and each flow's `starts_on` types start flows and let timers catch up;
/// `onboarding_step_skipped` (`flow`, `step_id`) skips the current step. Other events are not
/// looked at.
public struct OnboardingConsumer: EventConsumer {
    public let flows: OnboardingFlows
    public var name: String { "onboarding" }
    private let startTypes: Set<String>

    /// The event type that skips the current step.
    public static let skipEventType = "onboarding_step_skipped"

    public init(flows: OnboardingFlows) {
        self.flows = flows
        startTypes = Set(flows.flows.flatMap { $0.startsOn ?? [] })
    }

    /// Whether the onboarding engine looks at events of `type`.
    public func handles(_ type: String) -> Bool {
        type.hasPrefix("ui_") || type.hasPrefix("app_") || type == Self.skipEventType || startTypes.contains(type)
    }

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        guard !flows.flows.isEmpty, handles(event.type) else { return [] }
        let skip = event.type == Self.skipEventType ? try SkipRequest(event) : nil
        var effects: [Effect] = []
        var finished = Set<String>()
        var skipHandled = false
        for flow in flows.flows {
            var progress: OnboardingFlowProgress
            if let kept = try context.store.onboardingProgress(user: event.userID, flow: flow.key) {
                progress = kept
                if kept.version != flow.version {
                    effects.append(.onboardingFlowStarted(flow: flow.key, variant: kept.variant, version: flow.version))
                    progress.version = flow.version
                }
            } else {
                if let after = flow.after, !finished.contains(after) { continue }
                if let startsOn = flow.startsOn, !startsOn.contains(event.type) { continue }
                let variant = try chooseVariant(flow, event: event, context: context)
                effects.append(.onboardingFlowStarted(flow: flow.key, variant: variant, version: flow.version))
                progress = OnboardingFlowProgress(
                    flow: flow.key, variant: variant, version: flow.version, startedAt: event.occurredAt)
            }
            let steps = (flow.variant(named: progress.variant) ?? flow.variants[0]).steps
            var walk = StepWalk(flow: flow, progress: progress, steps: steps, event: event)
            try walk.run(skip: skip.flatMap { $0.flow == flow.id && !skipHandled ? $0 : nil }, context: context)
            if walk.skipped { skipHandled = true }
            effects += walk.effects
            if walk.isFinished { finished.insert(flow.id) }
        }
        if let skip, !skipHandled {
            throw Rejection(
                "not_in_progress",
                "onboarding flow `\(skip.flow)` is not in progress for this user, so step `\(skip.stepID)` cannot be skipped"
            )
        }
        return effects
    }

    private func chooseVariant(_ flow: OnboardingFlow, event: Event, context: ConsumerContext) throws -> String {
        let control = flow.variants[0].name
        guard let experiment = flow.experiment, let chooser = context.evaluator.variantChooser else { return control }
        let subject = ExperimentSubject(userID: event.userID, dogID: event.dogID)
        guard let name = try chooser.variation(of: experiment, subject: subject, now: event.occurredAt),
            flow.variant(named: name) != nil
        else { return control }
        return name
    }
}

/// An `onboarding_step_skipped` event's payload.
struct SkipRequest {
    var flow: String
    var stepID: String

    init(_ event: Event) throws {
        guard case .string(let flow)? = event.payload["flow"], !flow.isEmpty else {
            throw Rejection(.invalid, "`payload.flow` must name the onboarding flow whose step is skipped")
        }
        guard case .string(let step)? = event.payload["step_id"], !step.isEmpty else {
            throw Rejection(.invalid, "`payload.step_id` must name the step to skip")
        }
        self.flow = flow
        self.stepID = step
    }
}

/// Walks one flow's steps for one event: catches up timers, evaluates the current step's
/// trigger, applies a skip, and shows the next step.
struct StepWalk {
    let flow: OnboardingFlow
    var progress: OnboardingFlowProgress
    let steps: [OnboardingStep]
    let event: Event
    private(set) var effects: [Effect] = []
    private(set) var skipped = false

    init(flow: OnboardingFlow, progress: OnboardingFlowProgress, steps: [OnboardingStep], event: Event) {
        self.flow = flow
        self.progress = progress
        self.steps = steps
        self.event = event
    }

    /// The first step neither completed nor skipped.
    var current: OnboardingStep? { steps.first { progress.steps[$0.id] == nil } }
    var isFinished: Bool { current == nil }

    mutating func run(skip: SkipRequest?, context: ConsumerContext) throws {
        while let step = current {
            let shownAt = show(step, at: event.occurredAt)
            if let skip {
                guard skip.stepID == step.id else {
                    let state = progress.steps[skip.stepID].map {
                        $0.skipped ? "was already skipped" : "is already done"
                    }
                    throw Rejection(
                        "not_current",
                        "step `\(skip.stepID)` of flow `\(flow.id)` \(state ?? "is not the current step"); the current step is `\(step.id)`"
                    )
                }
                guard step.canSkip else {
                    throw Rejection(
                        "not_skippable",
                        "step `\(step.id)` of flow `\(flow.id)` cannot be skipped (can_skip: false); the user has to do it"
                    )
                }
                complete(step, shownAt: shownAt, at: event.occurredAt, skipped: true)
                skipped = true
                if let next = current { _ = show(next, at: event.occurredAt) }
                return
            }
            let elapsed = max(0, event.occurredAt - shownAt)
            guard try triggered(step, shownAt: shownAt, elapsed: elapsed, context: context) else { return }
            if case .timer(let seconds) = step.trigger {
                complete(step, shownAt: shownAt, at: shownAt + seconds, skipped: false)
                if let next = current { _ = show(next, at: shownAt + seconds) }
                continue  // the next timer may have run out too
            }
            complete(step, shownAt: shownAt, at: event.occurredAt, skipped: false)
            if let next = current { _ = show(next, at: event.occurredAt) }
            return  // one event does one step
        }
    }

    /// When `step` was shown, recording it now (at `time`) the first time.
    private mutating func show(_ step: OnboardingStep, at time: Double) -> Double {
        if let shown = progress.shownAt[step.id] { return shown }
        progress.shownAt[step.id] = time
        effects.append(.onboardingStepShown(flow: flow.key, stepID: step.id, at: time == event.occurredAt ? nil : time))
        return time
    }

    private mutating func complete(_ step: OnboardingStep, shownAt: Double, at time: Double, skipped: Bool) {
        let duration = max(0, time - shownAt)
        progress.steps[step.id] = OnboardingStepProgress(completedAt: time, skipped: skipped)
        effects.append(
            .onboardingStepCompleted(
                flow: flow.key, stepID: step.id, skipped: skipped, durationSeconds: duration,
                at: time == event.occurredAt ? nil : time))
        effects.append(
            .analyticsEvent(
                name: "onboarding_step_completed",
                properties: [
                    "flow": .string(flow.id), "version": .string(flow.version), "variant": .string(progress.variant),
                    "step_id": .string(step.id), "duration_seconds": .number(duration), "skipped": .bool(skipped),
                ]))
        if isFinished {
            effects.append(
                .analyticsEvent(
                    name: "onboarding_flow_completed",
                    properties: [
                        "flow": .string(flow.id), "version": .string(flow.version),
                        "variant": .string(progress.variant),
                        "skipped_steps": .number(Double(progress.steps.values.filter(\.skipped).count)),
                    ]))
        }
    }

    private func triggered(_ step: OnboardingStep, shownAt: Double, elapsed: Double, context: ConsumerContext) throws
        -> Bool
    {
        guard let rule = context.evaluator.ruleSet.rule(step.ruleID) else { return false }
        if let events = rule.events, !events.contains(event.type) { return false }
        let input = JSON.object([
            "event": event.json,
            "step": step.json,
            "state": .object([
                "flow": .string(flow.id), "variant": .string(progress.variant), "version": .string(flow.version),
                "shown_at": .string(Timestamp.format(shownAt)), "elapsed_seconds": .number(elapsed),
                "completed_step_ids": .array(
                    steps.filter { progress.steps[$0.id]?.skipped == false }.map { .string($0.id) }),
                "skipped_step_ids": .array(
                    steps.filter { progress.steps[$0.id]?.skipped == true }.map { .string($0.id) }),
            ]),
        ])
        let result = try context.evaluator.evaluate(
            rule, input: JV(input), options: EvaluationOptions(now: event.occurredAt))
        return result.value?.boolValue ?? false
    }
}
