import Core
import FeatureKit
import HTTP
import RuleEngine

/// `GET /v1/app-events`: the catalogue of the events the app can send — each declared by the
/// feature that consumes it, with what it means for a PM — and the event types the served
/// rules react to (`events:` of a rule) that no feature declares, named with those rules.
enum AppEventRoutes {
    static let routes: [FeatureRoute] = [FeatureRoute("GET", "/v1/app-events", admin: true, list)]

    static func list(_ service: any ServiceContext, _: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let declared = service.features.appEvents
        var items = declared.map { $0.event.json(feature: $0.feature) }
        var byRules: [String: [String]] = [:]
        for rule in service.ruleSet.rules {
            for type in rule.events ?? [] where !declared.contains(where: { $0.event.type == type }) {
                byRules[type, default: []].append(rule.id)
            }
        }
        for type in byRules.keys.sorted() {
            let rules = byRules[type] ?? []
            items.append([
                "type": .string(type), "says": .string("sends \(type)"),
                "description": .string("Named by the rules \(rules.joined(separator: ", ")); no feature declares it."),
                "feature": .null, "field": .null, "rule_ids": .array(rules.map(JSON.string)),
            ])
        }
        return .json(["revision": .string(service.ruleSet.revision), "events": .array(items)])
    }
}
