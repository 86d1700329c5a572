import Core
import Engine
import FeatureKit
import JQ
import RuleEngine
import Store

/// Walks one flow's steps for one event: catches up timers, evaluates the current step's
/// trigger, applies a skip, and shows the next step.
struct StepWalk {
    let flow: OnboardingFlow
    var progress: OnboardingFlowProgress
    let steps: [OnboardingStep]
    let event: Event
    /// The time of the event being ingested, whose unit writes the effects: an effect at
    /// another time (a timer's, or a stored event's when the user's onboarding is replayed)
    /// carries its own.
    let applyTime: Double
    /// Analytics made again by a replay are kept once (one already sent is not repeated).
    let replaying: Bool
    private(set) var effects: [Effect] = []
    private(set) var skipped = false

    init(
        flow: OnboardingFlow, progress: OnboardingFlowProgress, steps: [OnboardingStep], event: Event,
        applyTime: Double, replaying: Bool
    ) {
        self.flow = flow
        self.progress = progress
        self.steps = steps
        self.event = event
        self.applyTime = applyTime
        self.replaying = replaying
    }

    /// The first step neither completed nor skipped.
    var current: OnboardingStep? { steps.first { progress.steps[$0.id] == nil } }
    var isFinished: Bool { current == nil }

    /// When the flow ends: when its last step was done, or, when only timers are left, when
    /// they will have run out (nothing the user does is needed); nil while a step waits for
    /// the user.
    var endsAt: Double? {
        guard let step = current else { return progress.steps.values.map(\.completedAt).max() }
        guard var time = progress.shownAt[step.id] else { return nil }
        for step in steps where progress.steps[step.id] == nil {
            guard case .timer(let seconds) = step.trigger else { return nil }
            time += seconds
        }
        return time
    }

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
                        "step `\(skip.stepID)` of flow `\(flow.id)` \(state ?? "is not the current step"); the current step is `\(step.id)`",
                        field: FieldError(.invalid, at: "/payload/step_id", "is not the current step `\(step.id)`")
                    )
                }
                guard step.canSkip else {
                    throw Rejection(
                        "not_skippable",
                        "step `\(step.id)` of flow `\(flow.id)` cannot be skipped (can_skip: false); the user has to do it",
                        field: FieldError(.invalid, at: "/payload/step_id", "cannot be skipped (can_skip: false)")
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
        effects.append(.onboardingStepShown(flow: flow.key, stepID: step.id, at: time == applyTime ? nil : time))
        return time
    }

    private mutating func complete(_ step: OnboardingStep, shownAt: Double, at time: Double, skipped: Bool) {
        let duration = StepDuration.seconds(from: shownAt, to: time)
        progress.steps[step.id] = OnboardingStepProgress(completedAt: time, skipped: skipped)
        effects.append(
            .onboardingStepCompleted(
                flow: flow.key, stepID: step.id, skipped: skipped, durationSeconds: duration,
                at: time == applyTime ? nil : time))
        analytics(
            at: time, "onboarding_step_completed",
            [
                "flow": .string(flow.id), "version": .string(flow.version), "variant": .string(progress.variant),
                "step_id": .string(step.id), "duration_seconds": .number(duration), "skipped": .bool(skipped),
            ])
        if isFinished {
            analytics(
                at: time, "onboarding_flow_completed",
                [
                    "flow": .string(flow.id), "version": .string(flow.version), "variant": .string(progress.variant),
                    "skipped_steps": .number(Double(progress.steps.values.filter(\.skipped).count)),
                ])
        }
    }

    /// An analytics event as of `time`.
    private mutating func analytics(at time: Double, _ name: String, _ properties: JSONObject) {
        let made = AnalyticsEvent(userID: event.userID, name: name, occurredAt: time, properties: properties)
        effects.append(
            replaying
                ? OnboardingAnalyticsEffect(analytics: made).effect
                : Effect.analyticsEvent(name: name, properties: properties).dated(time, eventTime: applyTime))
    }

    private func triggered(_ step: OnboardingStep, shownAt: Double, elapsed: Double, context: ConsumerContext) throws
        -> Bool
    {
        guard let rule = context.evaluator.ruleSet.rule(step.ruleID) else { return false }
        if let events = rule.events, !events.contains(event.type) { return false }
        let input = JSON.object([
            "event": event.json,
            "step": step.json(
                RequestTexts.choose(profile: nil, acceptLanguage: nil, catalog: context.evaluator.ruleSet.texts)),
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
