import Core
import Engine
import Store

/// An onboarding step was completed (or skipped), at `at` (nil: when the event happened; a
/// timer step is done when its time ran out).
public struct OnboardingStepCompletedEffect: FeatureEffect, Equatable {
    public var flow: String
    public var stepID: String
    public var skipped: Bool
    public var durationSeconds: Double?
    public var at: Double?

    public var typeName: String { "onboarding_step_completed" }
    public var label: String { "onboarding_step_completed(\(flow)/\(stepID))" }
    public var members: JSONObject {
        var object: JSONObject = [
            "flow": .string(flow), "step_id": .string(stepID), "skipped": .bool(skipped),
            "duration_seconds": durationSeconds.map(JSON.number) ?? .null,
        ]
        if let at { object["completed_at"] = .string(Timestamp.format(at)) }
        return object
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        _ = try store.completeOnboardingStep(
            user: event.userID, flow: flow, step: stepID, skipped: skipped, at: at ?? event.occurredAt, event: eventRow)
    }

    /// Rules may complete a step: `{type: onboarding_step_completed, flow, step_id, skipped?, duration_seconds?}`.
    static let type = EffectType("onboarding_step_completed") { fields, _, _ throws(FieldError) in
        let flow = try fields.string("flow")
        let step = try fields.string("step_id")
        let skipped = try fields.optionalBool("skipped") ?? false
        let duration = try fields.optionalNumber("duration_seconds")
        try fields.finish()
        return OnboardingStepCompletedEffect(flow: flow, stepID: step, skipped: skipped, durationSeconds: duration)
            .effect
    }
}

/// A user started an onboarding flow (`flow` is its key: id and major version), in `variant`,
/// at `version`; for a returning user, the version seen is updated.
public struct OnboardingFlowStartedEffect: FeatureEffect, Equatable {
    public var flow: String
    public var variant: String
    public var version: String
    /// When (nil: when the event happened).
    public var at: Double?

    public var typeName: String { "onboarding_flow_started" }
    public var label: String { "onboarding_flow_started(\(flow)/\(variant))" }
    public var members: JSONObject {
        ["flow": .string(flow), "variant": .string(variant), "version": .string(version)]
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.startOnboardingFlow(
            user: event.userID, flow: flow, variant: variant, version: version, at: at ?? event.occurredAt)
    }
}

/// An onboarding step became the one shown to the user.
public struct OnboardingStepShownEffect: FeatureEffect, Equatable {
    public var flow: String
    public var stepID: String
    public var at: Double?

    public var typeName: String { "onboarding_step_shown" }
    public var label: String { "onboarding_step_shown(\(flow)/\(stepID))" }
    public var members: JSONObject {
        var object: JSONObject = ["flow": .string(flow), "step_id": .string(stepID)]
        if let at { object["shown_at"] = .string(Timestamp.format(at)) }
        return object
    }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.markOnboardingStepShown(user: event.userID, flow: flow, step: stepID, at: at ?? event.occurredAt)
    }
}

/// The user's onboarding is made again from their events in time order (one arrived late):
/// what was kept of it goes first, and the analytics not yet sent.
public struct OnboardingResetEffect: FeatureEffect, Equatable {
    public var typeName: String { "onboarding_replayed" }
    public var label: String { "onboarding_replayed" }
    public var members: JSONObject { [:] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        try store.forgetOnboarding(user: event.userID)
    }
}

/// An onboarding analytics event made by a replay: kept unless the same one was sent already.
public struct OnboardingAnalyticsEffect: FeatureEffect, Equatable {
    public var analytics: AnalyticsEvent

    public var typeName: String { "analytics_event" }
    public var label: String { "analytics_event(\(analytics.name))" }
    public var members: JSONObject { ["name": .string(analytics.name), "properties": .object(analytics.properties)] }

    public func apply(to store: any Store, event: Event, eventRow: Int64) throws {
        guard try !store.analyticsWasSent(analytics) else { return }
        try store.appendAnalytics(analytics, event: eventRow)
    }
}

extension Effect {
    static func onboardingStepCompleted(
        flow: String, stepID: String, skipped: Bool, durationSeconds: Double?, at: Double? = nil
    ) -> Effect {
        OnboardingStepCompletedEffect(
            flow: flow, stepID: stepID, skipped: skipped, durationSeconds: durationSeconds, at: at
        ).effect
    }
    static func onboardingFlowStarted(flow: String, variant: String, version: String, at: Double? = nil) -> Effect {
        OnboardingFlowStartedEffect(flow: flow, variant: variant, version: version, at: at).effect
    }
    static func onboardingStepShown(flow: String, stepID: String, at: Double? = nil) -> Effect {
        OnboardingStepShownEffect(flow: flow, stepID: stepID, at: at).effect
    }
}

extension OnboardingFeature {
    /// Rules may complete steps; starting a flow and showing a step only the engine does.
    public var effectTypes: [EffectType] {
        [
            OnboardingStepCompletedEffect.type, EffectType("onboarding_flow_started", madeBy: "the onboarding engine"),
            EffectType("onboarding_step_shown", madeBy: "the onboarding engine"),
        ]
    }
}
