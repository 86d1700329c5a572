import Core
import Experiments
import JQ
import RuleEngine
import YAML

/// Reads `flow:` documents (`Rules/onboarding/*.yaml`): each step's completion trigger becomes
/// an `onboarding_trigger` rule, compiled and checked with every other rule.
public struct OnboardingDocumentKind: DocumentKind {
    public let key = "flow"

    /// The event types features declare (nil: any type; a flow naming another is refused).
    let appEvents: Set<String>?

    /// - Parameter appEvents: the event types the app sends that features declare, which
    ///   triggers and `starts_on` may name (nil: any).
    public init(appEvents: Set<String>? = nil) { self.appEvents = appEvents }

    /// Refuses `type` (at `node`) when no feature declares it.
    private func checkDeclared(_ type: String, what: String, at node: YAMLNode, file: DocumentFile) {
        guard let appEvents, !appEvents.contains(type) else { return }
        let meant = closestMatch(to: type, in: appEvents.sorted()).map { "; did you mean `\($0)`?" } ?? ""
        file.error(
            "unknown_event",
            "\(what) names the event `\(type)`, which no feature declares the app sends (GET /v1/app-events lists them)\(meant)",
            at: file.location(node))
    }

    static let flowFields = [
        "flow", "title", "title_key", "version", "experiment", "after", "starts_on", "steps", "variants",
    ]
    static let stepFields = [
        "id", "target_element_id", "highlight", "tooltip", "texts", "completion_trigger", "can_skip",
    ]
    static let triggerKinds = ["tap", "swipe", "visible", "timer", "event", "expr"]
    static let swipeDirections = ["left", "right", "up", "down"]

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let fields = file.fields(root, what: "onboarding flow", allowed: Self.flowFields),
            let id = fields.identifier("flow", required: true)?.value
        else { return nil }
        var ok = true
        var version = "1.0"
        if let node = fields.values["version"] {
            let text = node.scalar?.value ?? ""
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            if node.scalar == nil || parts.isEmpty || parts.count > 3
                || !parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
            {
                file.error(
                    "invalid_value", "`version` must look like 1.0 or 2.3 (major.minor), found `\(text)`",
                    at: file.location(node))
                ok = false
            } else {
                version = text
            }
        } else {
            fields.missing("version", "give the flow a version such as \"1.0\"")
        }
        let experiment = fields.string("experiment")?.value
        var variants: [FlowVariant] = []
        switch (fields.values["steps"], fields.values["variants"]) {
        case (let steps?, nil):
            if experiment != nil {
                file.error(
                    "invalid_value", "a flow with an `experiment` gives its steps per variant under `variants`",
                    at: file.location(steps))
                ok = false
            }
            let name = OnboardingFlow.defaultVariantName
            variants = [FlowVariant(name: name, steps: decodeSteps(steps, flow: id, variant: nil, file: file))]
        case (nil, let node?):
            if experiment == nil {
                fields.missing("experiment", "`variants` are chosen by an experiment: name it in `experiment`")
                ok = false
            }
            guard let pairs = node.pairs, !pairs.isEmpty else {
                file.error(
                    "invalid_type", "`variants` maps each variant name to its list of steps", at: file.location(node))
                return nil
            }
            for pair in pairs {
                guard let name = pair.key.scalar?.value else { continue }
                if variants.contains(where: { $0.name == name }) {
                    file.error("duplicate_field", "variant `\(name)` is given twice", at: file.location(pair.key))
                    ok = false
                    continue
                }
                variants.append(
                    FlowVariant(name: name, steps: decodeSteps(pair.value, flow: id, variant: name, file: file)))
            }
        case (_?, _?):
            file.error(
                "invalid_value", "give either `steps` (one variant) or `variants` (chosen by an experiment), not both",
                at: fields.start)
            return nil
        case (nil, nil):
            fields.missing("steps", "list the flow's steps")
            return nil
        }
        var startsOn: [String]?
        if let list = fields.strings("starts_on") {
            startsOn = list.map(\.value)
            for (type, node) in list { checkDeclared(type, what: "`starts_on`", at: node, file: file) }
        }
        guard ok else { return nil }
        let flow = OnboardingFlow(
            id: id, title: Self.text(fields, written: "title", key: "title_key", file: file), version: version,
            experiment: experiment,
            after: fields.string("after")?.value, startsOn: startsOn, variants: variants, location: fields.start)
        let rules = variants.flatMap { variant in
            variant.steps.map { step in Self.rule(for: step, flow: id) }
        }
        return DecodedDocument(value: flow, rules: rules)
    }

    /// A text written in place (`written`) or a text key (`key`, checked against the locale
    /// files once everything is loaded); both is an error, neither nil.
    static func text(_ fields: YAMLFields, written: String, key: String, file: DocumentFile) -> FlowText? {
        let inPlace = fields.string(written)?.value
        let keyed = fields.string(key)
        if inPlace != nil, let keyed {
            file.error(
                "invalid_value", "give `\(written)` (written in place) or `\(key)` (a text key), not both",
                at: file.location(keyed.node))
            return nil
        }
        if let keyed { return .key(keyed.value, at: file.location(keyed.node)) }
        return inPlace.map(FlowText.written)
    }

    /// The rule id of a step's trigger.
    static func ruleID(flow: String, variant: String?, step: String) -> String {
        ["onboarding", flow, variant, step].compactMap { $0 }.joined(separator: ".")
    }

    private func decodeSteps(_ node: YAMLNode, flow: String, variant: String?, file: DocumentFile) -> [OnboardingStep] {
        guard let items = node.items, !items.isEmpty else {
            file.error("invalid_type", "steps are a non-empty list", at: file.location(node))
            return []
        }
        var steps: [OnboardingStep] = []
        var seen = Set<String>()
        for item in items {
            guard let step = decodeStep(item, flow: flow, variant: variant, file: file) else { continue }
            guard seen.insert(step.id).inserted else {
                file.error("duplicate_step", "step `\(step.id)` appears twice in this flow", at: step.location)
                continue
            }
            steps.append(step)
        }
        return steps
    }

    private func decodeStep(_ node: YAMLNode, flow: String, variant: String?, file: DocumentFile) -> OnboardingStep? {
        guard let fields = file.fields(node, what: "onboarding step", allowed: Self.stepFields) else { return nil }
        // Every problem of the step is reported in one pass.
        var ok = true
        let id = fields.identifier("id", required: true)?.value
        let target = fields.string("target_element_id", required: true)?.value
        var shape = OnboardingStep.Shape.rectangle
        var radius = 0.0
        if let highlight = fields.values["highlight"] {
            if let (parsed, parsedRadius) = decodeHighlight(highlight, file: file) {
                (shape, radius) = (parsed, parsedRadius)
            } else {
                ok = false
            }
        } else {
            fields.missing(
                "highlight", "circle, or rectangle with a corner radius: {shape: rectangle, corner_radius: 12}")
            ok = false
        }
        var text: FlowText?
        var position = OnboardingStep.TooltipPosition.auto
        if let tooltipNode = fields.values["tooltip"] {
            if let tooltip = file.fields(tooltipNode, what: "tooltip", allowed: ["text", "key", "position"]) {
                text = Self.text(tooltip, written: "text", key: "key", file: file)
                if text == nil {
                    tooltip.missing("key", "give the tooltip's text key of Rules/locales (`key:`), or a `text:`")
                }
                if let (value, positionNode) = tooltip.string("position") {
                    if let parsed = OnboardingStep.TooltipPosition(rawValue: value) {
                        position = parsed
                    } else {
                        file.error(
                            "invalid_value", "tooltip `position` is above, below or auto, found `\(value)`",
                            at: file.location(positionNode))
                        ok = false
                    }
                }
            }
        } else {
            fields.missing("tooltip", "give the tooltip's `key` (Rules/locales) and `position` (above, below or auto)")
        }
        var pageTexts: [(name: String, text: FlowText)] = []
        if let textsNode = fields.values["texts"] {
            if let pairs = textsNode.pairs {
                for pair in pairs {
                    guard let name = pair.key.scalar?.value, let key = pair.value.scalar?.value else {
                        file.error(
                            "invalid_type", "`texts` maps a name (title, body, button) to a text key",
                            at: file.location(pair.value))
                        ok = false
                        continue
                    }
                    pageTexts.append((name, .key(key, at: file.location(pair.value))))
                }
            } else {
                file.error(
                    "invalid_type", "`texts` maps a name (title, body, button) to a text key of Rules/locales",
                    at: file.location(textsNode))
                ok = false
            }
        }
        var trigger: OnboardingStep.Trigger?
        if let triggerNode = fields.values["completion_trigger"] {
            trigger = decodeTrigger(triggerNode, file: file)
        } else {
            fields.missing(
                "completion_trigger",
                "e.g. {tap: add_button}, {swipe: left}, {timer: 5} or {event: ui_text_changed, where: {…}}")
        }
        let canSkip = fields.bool("can_skip") ?? false
        guard ok, let id, let target, let text, let trigger else { return nil }
        return OnboardingStep(
            id: id, targetElementID: target, shape: shape, cornerRadius: radius, tooltip: text,
            tooltipPosition: position, texts: pageTexts, trigger: trigger, canSkip: canSkip,
            ruleID: Self.ruleID(flow: flow, variant: variant, step: id), location: fields.start)
    }

    /// `circle`, `rectangle`, or `{shape, corner_radius}`.
    private func decodeHighlight(_ node: YAMLNode, file: DocumentFile) -> (OnboardingStep.Shape, Double)? {
        if let text = node.scalar?.value {
            guard let shape = OnboardingStep.Shape(rawValue: text) else {
                file.error(
                    "invalid_value", "`highlight` is circle or rectangle, found `\(text)`", at: file.location(node))
                return nil
            }
            return (shape, 0)
        }
        guard let fields = file.fields(node, what: "highlight", allowed: ["shape", "corner_radius"]),
            let (text, shapeNode) = fields.string("shape", required: true)
        else { return nil }
        guard let shape = OnboardingStep.Shape(rawValue: text) else {
            file.error("invalid_value", "`shape` is circle or rectangle, found `\(text)`", at: file.location(shapeNode))
            return nil
        }
        guard let radiusNode = fields.values["corner_radius"] else { return (shape, 0) }
        if shape == .circle {
            file.error("invalid_value", "a circle has no `corner_radius`", at: file.location(radiusNode))
            return nil
        }
        guard let (radius, _) = fields.number("corner_radius", within: 0...1000) else { return nil }
        return (shape, radius)
    }

    private func decodeTrigger(_ node: YAMLNode, file: DocumentFile) -> OnboardingStep.Trigger? {
        guard let fields = file.fields(node, what: "completion trigger", allowed: Self.triggerKinds + ["where"]) else {
            return nil
        }
        let given = Self.triggerKinds.filter(fields.has)
        guard given.count == 1, let kind = given.first else {
            file.error(
                "invalid_value",
                "a completion trigger has exactly one of tap, swipe, visible, timer, event or expr; found \(given.isEmpty ? "none" : given.joined(separator: ", "))",
                at: file.location(node))
            return nil
        }
        if kind != "event", let whereNode = fields.values["where"] {
            file.error(
                "invalid_value", "`where` goes with an `event` trigger (its payload conditions), not with `\(kind)`",
                at: file.location(whereNode))
            return nil
        }
        switch kind {
        case "tap", "visible":
            guard let element = fields.string(kind)?.value, !element.isEmpty else { return nil }
            return kind == "tap" ? .tap(element) : .visible(element)
        case "swipe":
            guard let (direction, directionNode) = fields.string("swipe") else { return nil }
            guard Self.swipeDirections.contains(direction) else {
                file.error(
                    "invalid_value", "`swipe` is left, right, up or down, found `\(direction)`",
                    at: file.location(directionNode))
                return nil
            }
            return .swipe(direction)
        case "timer":
            guard let (seconds, _) = fields.number("timer", within: 0.001...86_400) else { return nil }
            return .timer(seconds)
        case "event":
            guard let trigger = EventTriggerDecoding.decode(fields, file: file) else { return nil }
            if let node = fields.values["event"] {
                checkDeclared(trigger.type, what: "the completion trigger", at: node, file: file)
            }
            return .event(trigger)
        default:
            guard let expression = file.expression(fields, "expr") else { return nil }
            return .expression(expression)
        }
    }

    /// The `onboarding_trigger` rule deciding `step`.
    static func rule(for step: OnboardingStep, flow: String) -> RuleDefinition {
        func quoted(_ text: String) -> String { JSON.string(text).compactText }
        let source: String
        var events: [String]?
        switch step.trigger {
        case .tap(let element):
            source = ".event.type == \"ui_tap\" and .event.payload.element_id == \(quoted(element))"
            events = ["ui_tap"]
        case .swipe(let direction):
            source = ".event.type == \"ui_swipe\" and .event.payload.direction == \(quoted(direction))"
            events = ["ui_swipe"]
        case .visible(let element):
            source = ".event.type == \"ui_element_visible\" and .event.payload.element_id == \(quoted(element))"
            events = ["ui_element_visible"]
        case .timer(let seconds):
            source = ".state.elapsed_seconds >= \(JSON.number(seconds).compactText)"
        case .event(let trigger):
            source = trigger.jq
            events = [trigger.type]
        case .expression(let expression):
            source = expression.source
        }
        let kind = RuleKind.onboardingTrigger
        let location = step.location
        return RuleDefinition(
            id: step.ruleID, kind: kind, description: "completes onboarding step `\(step.id)` of flow `\(flow)`",
            location: location,
            variants: [
                Variant(
                    name: RuleDefinition.defaultVariantName,
                    expression: step.trigger.writtenExpression
                        ?? Expression(source: source, start: location, isBlock: false, contentColumn: location.column))
            ], events: events)
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        let flows = documents.compactMap { $0.value as? OnboardingFlow }
        let experiments = ExperimentCatalog(context.documents(of: ExperimentList.self).flatMap(\.experiments))
        StepReferenceChecks.run(flows, in: context)
        FlowTextChecks.run(flows, in: context)
        var seen: [String: SourceLocation] = [:]
        for flow in flows {
            if seen[flow.id] != nil {
                context.error("duplicate_flow", "onboarding flow `\(flow.id)` is defined twice", at: flow.location)
            }
            seen[flow.id] = flow.location
            if let experiment = flow.experiment {
                ExperimentsDocumentKind.checkVariants(
                    of: experiment, against: flow.variants.map(\.name), what: "flow `\(flow.id)`", at: flow.location,
                    catalog: experiments, context: context)
            }
            if let after = flow.after {
                if !flows.contains(where: { $0.id == after }) {
                    let meant = closestMatch(to: after, in: flows.map(\.id)).map { "; did you mean `\($0)`?" } ?? ""
                    context.error(
                        "unknown_flow", "flow `\(flow.id)` comes after `\(after)`, which is not a flow\(meant)",
                        at: flow.location)
                } else {
                    var chain = [flow.id]
                    var next: String? = after
                    while let current = next, !chain.contains(current) {
                        chain.append(current)
                        next = flows.first { $0.id == current }?.after
                    }
                    if let current = next, current == flow.id {
                        context.error(
                            "flow_cycle",
                            "flows follow each other in a circle: \((chain + [flow.id]).joined(separator: " → "))",
                            at: flow.location)
                    }
                }
            }
        }
    }
}
