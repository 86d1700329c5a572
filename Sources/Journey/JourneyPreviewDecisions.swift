import Core
import RuleEngine
import Store

/// What a dog's Dog Journey screens decide, for impact previews: Today's recommendation and its
/// offer, the continue card, and each branch path's Now node.
enum JourneyPreviewDecisions {
    static func decisions(dog: String, store: any StoreReader, evaluator: RuleEvaluator, now: Double) throws
        -> JSONObject
    {
        let views = JourneyViews(store: store, evaluator: evaluator, now: now)
        let today: JSON
        do {
            today = try views.today(dog)
        } catch is JourneyViewError {
            return [:]  // no journey (a dog registered without one): nothing decided
        }
        var decisions: JSONObject = [
            "today.recommended": today["recommended"]?["block_id"] ?? .null,
            "today.offer": today["recommended"]?["offer"] ?? .null,
            "today.continue": today["continue"]?["block_id"] ?? .null,
        ]
        for branch in try views.journey(dog)["branches"]?.arrayValue ?? [] {
            guard let id = branch["id"]?.stringValue else { continue }
            decisions["path.\(id).now"] = try views.path(dog, branch: id)["now"] ?? .null
        }
        return decisions
    }
}
