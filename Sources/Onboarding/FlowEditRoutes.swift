import Core
import FeatureKit
import HTTP
import Locales
import Revisions
import RuleEngine
import Store

/// The admin API that changes onboarding flows without editing YAML: every flow with its
/// variants, steps and texts per locale (and the events a step can wait for), and a change of
/// one variant's steps — reordered, added, removed, their tooltips reworded — with the version
/// decision explicit (`minor`: finished users see only the new steps; `major`: everyone starts
/// again) and counted over the users who started the flow. A change is a draft revision (the
/// flow document and the locale files edited line by line), previewed, diffed and activated
/// with the revision routes like any other.
enum FlowEditRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/onboarding/flows", admin: true, list),
        FeatureRoute("GET", "/v1/onboarding/flows/{flow_id}", admin: true, show),
        FeatureRoute("PUT", "/v1/onboarding/flows/{flow_id}", admin: true, role: .editor, put),
        FeatureRoute("POST", "/v1/onboarding/flows/{flow_id}/check", admin: true, role: .editor, check),
    ]

    /// Every flow, the locales, and the events a step can wait for.
    static func list(_ service: any ServiceContext, _: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let ruleSet = service.ruleSet
        let flows = OnboardingFlows(ruleSet: ruleSet)
        var events: [JSON] = service.features.appEvents.filter { $0.event.field != nil }.map {
            $0.event.json(feature: $0.feature)
        }
        events.append(
            AppEvent(
                "timer", says: "waits a number of seconds",
                "No event: the step is done once this many seconds have passed since it was shown.", field: "seconds"
            ).json(feature: "onboarding"))
        var items: [JSON] = []
        for flow in flows.flows { items.append(try json(flow, ruleSet: ruleSet, store: service.store)) }
        return .json([
            "revision": .string(ruleSet.revision), "locales": .array(ruleSet.texts.codes.map(JSON.string)),
            "events": .array(events),
            "flows": .array(items),
        ])
    }

    /// One flow as `list` gives it.
    static func show(_ service: any ServiceContext, _: HTTPRequest, _ parameters: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let id = try parameters.require("flow_id")
        let flows = OnboardingFlows(ruleSet: service.ruleSet)
        guard let flow = flows[id] else { throw unknown(id, flows) }
        var object = try json(flow, ruleSet: service.ruleSet, store: service.store)
        if case .object(var fields) = object {
            fields["revision"] = .string(service.ruleSet.revision)
            object = .object(fields)
        }
        return .json(object)
    }

    /// `{variant?, steps: [{id} | {id, tooltip: {LOCALE: text}} | a new step], version_change?,
    /// message?, base?}`: the variant's steps as given, as a draft revision. A new step is
    /// `{id, target_element_id, tooltip: {LOCALE: text}, trigger: {event, element_id | direction}
    /// | {timer: seconds}, highlight?, position?, can_skip?}`. `version_change` is `minor` or
    /// `major` when the steps change (`none` keeps the version: texts only). 422 names each
    /// refused field by its pointer.
    static func put(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let draft = try FlowDraft(request, flow: try parameters.require("flow_id"), service: service, keeping: true)
        let impact = try draft.impact(service)
        var consequences: [JSON] = []
        switch draft.versionChange {
        case "minor": consequences.append(impact["minor_impact"]?["says"] ?? .null)
        case "major": consequences.append(impact["major_impact"]?["says"] ?? .null)
        default:
            if draft.editedSteps.isEmpty, draft.startsOn == nil {
                consequences.append(
                    .string("The steps stay as they are (version \(draft.flow.version)): only texts change."))
            }
        }
        if let kept = impact["kept_impact"]?["says"]?.stringValue, !kept.isEmpty { consequences.append(.string(kept)) }
        consequences += draft.sharedTexts.map(JSON.string)
        return try draft.base.keep(
            draft.edited, message: draft.message ?? draft.summary, request: request, service: service,
            extra: [
                "flow_id": .string(draft.flow.id), "variant": .string(draft.variant), "version": .string(draft.version),
                "version_change": .string(draft.versionChange), "impact": impact,
                "consequences": .array(consequences),
            ],
            pointer: draft.pointer)
    }

    /// The same request as `PUT` (`version_change` may be left out): what each version choice
    /// would do, counted, stored nowhere.
    static func check(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let draft = try FlowDraft(request, flow: try parameters.require("flow_id"), service: service, keeping: false)
        return .json([
            "flow_id": .string(draft.flow.id), "variant": .string(draft.variant),
            "version": .string(draft.flow.version), "steps_change": .bool(draft.stepsChange),
            "edited_steps": .array(draft.editedSteps.map(JSON.string)),
            "starts_on_change": .bool(draft.startsOn != nil), "impact": try draft.impact(service),
            "shared_texts": .array(draft.sharedTexts.map(JSON.string)),
        ])
    }

    // MARK: Helpers

    static func unknown(_ id: String, _ flows: OnboardingFlows) -> APIError {
        var message = "no onboarding flow is called `\(id)`"
        if let near = closestMatch(to: id, in: flows.flows.map(\.id)) { message += "; did you mean `\(near)`?" }
        return APIError.notFound("unknown_flow", message)
    }

    private static func json(_ flow: OnboardingFlow, ruleSet: RuleSet, store: any Store) throws(APIError) -> JSON {
        let catalog = ruleSet.texts
        let histories: [String: OnboardingFlowProgress]
        do {
            histories = try store.onboardingHistories(flow: flow.key)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
        func texts(_ text: FlowText) -> JSON {
            guard let key = text.key else { return ["written": .string(text.rendered(flowTexts(catalog)))] }
            var object: JSONObject = [:]
            for locale in catalog.locales {
                object[locale.locale] = locale.texts[key].map { .string($0.message.source) } ?? .null
            }
            return .object(object)
        }
        let variants: [JSON] = flow.variants.map { variant in
            let users = histories.values.filter { $0.variant == variant.name }
            let finished = users.filter { progress in variant.steps.allSatisfy { progress.steps[$0.id] != nil } }.count
            return [
                "name": .string(variant.name), "started_users": .number(Double(users.count)),
                "finished_users": .number(Double(finished)),
                "steps": .array(
                    variant.steps.map { step in
                        var highlight: JSONObject = ["shape": .string(step.shape.rawValue)]
                        if step.shape == .rectangle { highlight["corner_radius"] = .number(step.cornerRadius) }
                        return [
                            "id": .string(step.id), "target_element_id": .string(step.targetElementID),
                            "highlight": .object(highlight), "placement": .string(step.tooltipPosition.rawValue),
                            "tooltip": [
                                "key": step.tooltip.key.map(JSON.string) ?? .null, "texts": texts(step.tooltip),
                                "shared_with": .array(
                                    flow.variants.filter { other in
                                        other.name != variant.name && step.tooltip.key != nil
                                            && other.steps.contains { $0.tooltip.key == step.tooltip.key }
                                    }.map { .string($0.name) }),
                            ],
                            "completion_trigger": step.trigger.json, "can_skip": .bool(step.canSkip),
                        ]
                    }),
            ]
        }
        let (minor, major) = nextVersions(flow.version)
        let folder = ruleSet.rulesDirectory + "/"
        let file =
            flow.location.file.hasPrefix(folder)
            ? "Rules/" + flow.location.file.dropFirst(folder.count) : flow.location.file
        return [
            "id": .string(flow.id), "key": .string(flow.key),
            "title": flow.title.map { .string($0.rendered(flowTexts(catalog))) } ?? .null,
            "version": .string(flow.version), "next_versions": ["minor": .string(minor), "major": .string(major)],
            "experiment": flow.experiment.map(JSON.string) ?? .null, "after": flow.after.map(JSON.string) ?? .null,
            "starts_on": flow.startsOn.map { .array($0.map(JSON.string)) } ?? .null, "file": .string(String(file)),
            "started_users": .number(Double(histories.count)), "variants": .array(variants),
        ]
    }

    static func flowTexts(_ catalog: TextCatalog) -> RequestTexts {
        RequestTexts.choose(profile: nil, acceptLanguage: nil, catalog: catalog)
    }

    /// The version after `version` for a minor change and for a major one: 1.0 → 1.1, 2.0.
    static func nextVersions(_ version: String) -> (minor: String, major: String) {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        let major = parts.first ?? 1
        let minor = parts.count > 1 ? parts[1] : 0
        return ("\(major).\(minor + 1)", "\(major + 1).0")
    }
}
