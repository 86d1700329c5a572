import Core
import FeatureKit
import HTTP
import RuleEngine

/// The onboarding funnel for product managers (admin): per flow, in total over its variants
/// or per variant, each step's reached, completed, skipped, stuck and median time, and the
/// biggest drop-off.
enum FunnelRoutes {
    /// `GET /v1/funnels/onboarding[?flow_id=ID][&by_variant=true]` (the former `?flow=` refused naming it): what `journey funnel onboarding
    /// --format json [--by-variant]` prints, from the rules served and the store.
    static func onboarding(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        try request.refuseRenamedQuery("flow", to: "flow_id")
        var byVariant = false
        if let value = request.query("by_variant") {
            guard value == "true" || value == "false" else {
                throw APIError(400, "invalid_query", "by_variant must be true or false, found `\(value)`")
            }
            byVariant = value == "true"
        }
        var flows = OnboardingFlows(ruleSet: service.ruleSet).flows
        if let only = request.query("flow_id") {
            flows = flows.filter { $0.id == only }
            guard !flows.isEmpty else {
                let known = OnboardingFlows(ruleSet: service.ruleSet).flows.map(\.id)
                throw APIError.notFound(
                    "unknown_flow", "no onboarding flow `\(only)`; flows: \(known.joined(separator: ", "))")
            }
        }
        do {
            let funnels = try flows.map { try OnboardingFunnel(flow: $0, store: service.store) }
            return .json(["funnels": .array(funnels.map { $0.json(byVariant: byVariant) })])
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
    }
}
