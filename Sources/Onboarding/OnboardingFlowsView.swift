import Core
import FeatureKit
import Store

/// Every onboarding flow as the app's own coordinator runs it: the steps of the user's variant
/// (every variant's, while the flow has not started and no variant is chosen), the order
/// flows follow each other in, what starts each, and what the user has done so far. The
/// steps come from the server, so a new flow or an A/B test needs no app release; the app
/// still sends its `ui_*` events, and the server keeps the same progress as for an app that
/// asks for the current step.
public enum OnboardingFlowsView {
    /// `{user_id, flows: [{flow, key, title, version, after, starts_on, status, variant,
    /// started_at, steps, completed_step_ids, skipped_step_ids, variants?}]}`.
    /// Texts are in `texts`' locale.
    public static func json(user: String, flows: OnboardingFlows, store: any StoreReader, texts: RequestTexts) throws
        -> JSON
    {
        var list: [JSON] = []
        for flow in flows.flows {
            var object: JSONObject = [
                "flow_id": .string(flow.id), "key": .string(flow.key),
                "title": flow.title.map { .string($0.rendered(texts)) } ?? .null,
                "version": .string(flow.version), "after": flow.after.map(JSON.string) ?? .null,
                "starts_on": flow.startsOn.map { .array($0.map(JSON.string)) } ?? .null,
            ]
            guard let progress = try store.onboardingProgress(user: user, flow: flow.key) else {
                object["status"] = "not_started"
                object["variant"] = flow.variants.count == 1 ? .string(flow.variants[0].name) : .null
                object["started_at"] = .null
                object["steps"] =
                    flow.variants.count == 1 ? .array(flow.variants[0].steps.map { $0.json(texts) }) : .null
                object["completed_step_ids"] = []
                object["skipped_step_ids"] = []
                object["variants"] = .array(
                    flow.variants.map {
                        .object(["name": .string($0.name), "steps": .array($0.steps.map { $0.json(texts) })])
                    })
                list.append(.object(object))
                continue
            }
            let steps = (flow.variant(named: progress.variant) ?? flow.variants[0]).steps
            let finished = steps.allSatisfy { progress.steps[$0.id] != nil }
            object["status"] = .string(finished ? "finished" : "in_progress")
            object["variant"] = .string(progress.variant)
            object["started_at"] = .string(Timestamp.format(progress.startedAt))
            object["steps"] = .array(steps.map { $0.json(texts) })
            object["completed_step_ids"] = .array(
                steps.filter { progress.steps[$0.id]?.skipped == false }.map { .string($0.id) })
            object["skipped_step_ids"] = .array(
                steps.filter { progress.steps[$0.id]?.skipped == true }.map { .string($0.id) })
            list.append(.object(object))
        }
        return .object(["user_id": .string(user), "flows": .array(list)])
    }
}
