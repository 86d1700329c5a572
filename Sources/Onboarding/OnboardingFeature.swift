import Core
import Engine
import FeatureKit
import Foundation
import RuleEngine
import Store

/// The walk-through onboarding: flows in `Rules/onboarding`, their triggers as rules, progress
/// through the ingest path, the current step for the app, the funnel.
public struct OnboardingFeature: Feature {
    public init() {}

    public var name: String { "onboarding" }
    public var migrations: [Migration] { OnboardingSchema.migrations }
    public var ruleKinds: [RuleKind] { [.onboardingTrigger] }
    public var documentKinds: [any DocumentKind] { [OnboardingDocumentKind()] }

    public func documentKinds(appEvents: [AppEvent]) -> [any DocumentKind] {
        [OnboardingDocumentKind(appEvents: Set(appEvents.map(\.type)))]
    }

    public var appEvents: [AppEvent] { OnboardingEvents.declared }

    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] {
        [OnboardingConsumer(flows: OnboardingFlows(ruleSet: ruleSet))]
    }

    public var rejectionStatuses: [String: Int] {
        ["not_skippable": 409, "not_current": 409, "not_in_progress": 409]
    }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    /// A flow's steps change only with its version.
    public func checkChange(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic] {
        FlowChangeCheck.diagnostics(from: parent, to: candidate)
    }

    public var routes: [FeatureRoute] {
        [
            FeatureRoute(
                "GET", "/v1/users/{user_id}/onboarding", access: .user([.pathUser("user_id")]), OnboardingRoutes.show),
            FeatureRoute(
                "GET", "/v1/users/{user_id}/onboarding/flows", access: .user([.pathUser("user_id")]),
                OnboardingRoutes.flows),
            FeatureRoute(
                "POST", "/v1/users/{user_id}/onboarding/skip", access: .user([.pathUser("user_id")]),
                OnboardingRoutes.skip),
            FeatureRoute("GET", "/v1/funnels/onboarding", admin: true, FunnelRoutes.onboarding),
        ] + FlowEditRoutes.routes
    }

    public var texts: [TextUse] {
        [TextUse(OnboardingView.stepsLeftKey, usedBy: "GET /v1/users/{user_id}/onboarding (steps_left_text)")]
    }

    public var commands: [any Command.Type] { [OnboardingShowCommand.self, FunnelCommand.self] }
    public var commandGroups: [String: String] {
        [
            "onboarding": "Show a user's onboarding: the current step and each flow's state.",
            "funnel": "Show funnels: where users drop out of onboarding.",
        ]
    }
}
