import Core
import RuleEngine
import Store

/// What a dog's Dog Journey screens decide, for impact previews: Today's recommendation and its
/// offer, the continue card, and each branch path's Now node — from one journey state (the
/// views would each load it again).
enum JourneyPreviewDecisions {
    static func decisions(dog: String, store: any StoreReader, evaluator: RuleEvaluator, now: Double) throws
        -> JSONObject
    {
        let views = JourneyViews(store: store, evaluator: evaluator, now: now)
        let state: JourneyState
        do {
            state = try views.state(dog)
        } catch is JourneyViewError {
            return [:]  // no journey (a dog registered without one): nothing decided
        }
        let recommended = state.recommended.flatMap { state.map.block($0) }
        let continued = state.continueBlock.flatMap { $0 == state.recommended ? nil : state.map.block($0) }
        var decisions: JSONObject = [
            "today.recommended": recommended.map { .string($0.id) } ?? .null,
            "today.offer": try recommended.flatMap { try views.offer(for: $0, state: state) }.map(JSON.string) ?? .null,
            "today.continue": continued.map { .string($0.id) } ?? .null,
        ]
        for branch in state.map.branches {
            decisions["path.\(branch.id).now"] = views.nowNode(in: branch, state: state).map(JSON.string) ?? .null
        }
        return decisions
    }
}
