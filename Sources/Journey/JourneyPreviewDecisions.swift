import Core
import RuleEngine
import Store

/// What a dog's Dog Journey screens decide, for impact previews: Today's recommendation and its
/// offer, the continue card, and each branch path's Now node — from one journey state (the
/// views would each load it again).
enum JourneyPreviewDecisions {
    /// One object per evaluator; the dog, its map and its steps are read once for all.
    static func decisions(dog dogID: String, store: any StoreReader, evaluators: [RuleEvaluator], now: Double) throws
        -> [JSONObject]
    {
        guard let first = evaluators.first else { return [] }
        guard let dog = try store.dog(dogID),
            let base = try JourneyLoader.state(
                of: dog, steps: try store.blockSteps(dog: dogID), store: store, ruleSet: first.ruleSet)
        else {
            return evaluators.map { _ in [:] }  // no dog or no journey: nothing decided
        }
        return try evaluators.map { evaluator in
            let views = JourneyViews(store: store, evaluator: evaluator, now: now)
            var state = base
            try state.recommend(evaluator: evaluator, now: now)
            if let problem = state.recommendationProblem { views.log(problem.description) }
            return try decisions(state, views: views)
        }
    }

    private static func decisions(_ state: JourneyState, views: JourneyViews) throws -> JSONObject {
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
