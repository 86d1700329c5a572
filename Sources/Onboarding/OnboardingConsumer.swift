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
    /// Onboarding reads its own progress and the user's events, never reminders.
    public func readsReminders(for event: Event) -> Bool { false }
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

    /// The types the onboarding engine looks at, for reading a user's stored events.
    private var handledTypes: EventTypeFilter {
        EventTypeFilter(types: startTypes.union([Self.skipEventType]), prefixes: ["ui_", "app_"])
    }

    /// The effects of `event`. Onboarding follows the user's events in time order: an event
    /// that happened before one already handled (it arrived late) replays the user's
    /// onboarding from their stored events, this one in its place, and the outcome replaces
    /// what was kept (analytics already sent stay sent and are not repeated).
    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        guard !flows.flows.isEmpty, handles(event.type) else { return [] }
        let skip = event.type == Self.skipEventType ? try SkipRequest(event) : nil
        if let latest = try context.store.latestUserEvent(user: event.userID, filter: handledTypes),
            (event.occurredAt, event.eventID) < latest
        {
            return try replay(adding: event, skip: skip, context: context)
        }
        var states: [String: OnboardingFlowProgress] = [:]
        for flow in flows.flows {
            states[flow.key] = try context.store.onboardingProgress(user: event.userID, flow: flow.key)
        }
        return try advance(
            event, skip: skip, states: &states, applyTime: event.occurredAt, replaying: false, context: context)
    }

    /// The user's onboarding made again from their stored events and `event`, in time order.
    /// A stored skip that is not the current step in time order changes nothing; `event`'s
    /// own skip is judged as when it arrives in order.
    private func replay(adding event: Event, skip: SkipRequest?, context: ConsumerContext) throws -> [Effect] {
        var events = try context.store.userEvents(user: event.userID, filter: handledTypes).compactMap { stored in
            try? Event(validating: stored.json(user: event.userID), receivedAt: event.receivedAt)
        }
        events.removeAll { $0.eventID == event.eventID }
        events.append(event)
        events.sort { ($0.occurredAt, $0.eventID) < ($1.occurredAt, $1.eventID) }
        var states: [String: OnboardingFlowProgress] = [:]
        var effects: [Effect] = [OnboardingResetEffect().effect]
        for replayed in events {
            if replayed.eventID == event.eventID {
                effects += try advance(
                    replayed, skip: skip, states: &states, applyTime: event.occurredAt, replaying: true,
                    context: context)
                continue
            }
            let storedSkip = replayed.type == Self.skipEventType ? try? SkipRequest(replayed) : nil
            var attempt = states
            if let made = try? advance(
                replayed, skip: storedSkip, states: &attempt, applyTime: event.occurredAt, replaying: true,
                context: context)
            {
                effects += made
                states = attempt
            } else if storedSkip != nil {
                effects += try advance(
                    replayed, skip: nil, states: &states, applyTime: event.occurredAt, replaying: true,
                    context: context)
            }
        }
        return effects
    }

    /// What `event` does to the user's flows, given where they are (`states`, by flow key,
    /// updated): starts flows, shows steps, completes the current ones, applies a skip.
    private func advance(
        _ event: Event, skip: SkipRequest?, states: inout [String: OnboardingFlowProgress], applyTime: Double,
        replaying: Bool, context: ConsumerContext
    ) throws -> [Effect] {
        let at = event.occurredAt == applyTime ? nil : event.occurredAt
        var effects: [Effect] = []
        /// Flows that ended (or will, when only their timers are left), with when.
        var ended: [String: Double] = [:]
        var skipHandled = false
        for flow in flows.flows {
            var progress: OnboardingFlowProgress
            var chainedStart: Double?
            if let kept = states[flow.key] {
                progress = kept
                if kept.version != flow.version {
                    effects.append(
                        .onboardingFlowStarted(flow: flow.key, variant: kept.variant, version: flow.version, at: at))
                    progress.version = flow.version
                }
            } else {
                if let after = flow.after {
                    // A chained flow starts as the one before ends, its first step shown then.
                    guard let end = ended[after] else { continue }
                    chainedStart = end
                }
                if let startsOn = flow.startsOn, !startsOn.contains(event.type) { continue }
                let variant = try chooseVariant(flow, event: event, context: context)
                let start = chainedStart ?? event.occurredAt
                effects.append(
                    .onboardingFlowStarted(
                        flow: flow.key, variant: variant, version: flow.version, at: start == applyTime ? nil : start))
                progress = OnboardingFlowProgress(
                    flow: flow.key, variant: variant, version: flow.version, startedAt: start)
                if let chainedStart, let first = (flow.variant(named: variant) ?? flow.variants[0]).steps.first {
                    progress.shownAt[first.id] = chainedStart
                    effects.append(
                        .onboardingStepShown(
                            flow: flow.key, stepID: first.id, at: chainedStart == applyTime ? nil : chainedStart))
                }
            }
            let steps = (flow.variant(named: progress.variant) ?? flow.variants[0]).steps
            var walk = StepWalk(
                flow: flow, progress: progress, steps: steps, event: event, applyTime: applyTime, replaying: replaying)
            try walk.run(skip: skip.flatMap { $0.flow == flow.id && !skipHandled ? $0 : nil }, context: context)
            if walk.skipped { skipHandled = true }
            effects += walk.effects
            states[flow.key] = walk.progress
            if let end = walk.endsAt { ended[flow.id] = end }
        }
        if let skip, !skipHandled {
            throw Rejection(
                "not_in_progress",
                "onboarding flow `\(skip.flow)` is not in progress for this user, so step `\(skip.stepID)` cannot be skipped",
                field: FieldError(.invalid, at: "/payload/flow", "is not in progress for this user")
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
