import Core
import FeatureKit
import JQ
import Locales
import RuleEngine

/// A walk-through from `Rules/onboarding/*.yaml`: the steps a user does, one at a time, each
/// done when its completion trigger says so.
public struct OnboardingFlow: Sendable {
    /// The flow's id.
    public var id: String
    public var title: FlowText?
    /// `MAJOR.MINOR`: a new minor version may add steps (a returning user sees only the new
    /// ones); a new major version starts the flow over.
    public var version: String
    /// Chooses among ``variants`` per user; nil for a flow with one variant.
    public var experiment: String?
    /// The flow that must be finished before this one starts.
    public var after: String?
    /// Event types that start the flow; nil means any event of the user.
    public var startsOn: [String]?
    /// The variants, the first being the default (the control).
    public var variants: [FlowVariant]
    public var location: SourceLocation

    /// The variant name of a flow without an experiment.
    public static let defaultVariantName = "default"

    /// The major version: what progress is kept under.
    public var major: String { String(version.prefix { $0 != "." }) }

    /// Progress is kept under `id@major`, so a major version starts over.
    public var key: String { "\(id)@\(major)" }

    public func variant(named name: String) -> FlowVariant? {
        variants.first { $0.name == name }
    }
}

/// The steps of one variant of a flow.
public struct FlowVariant: Sendable {
    public var name: String
    public var steps: [OnboardingStep]
}

/// One step: what to highlight, what to say, and what completes it.
public struct OnboardingStep: Sendable {
    public enum Shape: String, Sendable {
        case circle, rectangle
    }

    public enum TooltipPosition: String, Sendable, CaseIterable {
        case above, below, auto
    }

    /// What completes a step.
    public enum Trigger: Sendable {
        /// A tap on the element.
        case tap(String)
        /// A swipe in a direction (left, right, up, down).
        case swipe(String)
        /// The element became visible.
        case visible(String)
        /// Done once this many seconds have passed since the step was shown.
        case timer(Double)
        /// A screen event whose payload meets conditions (data the app can evaluate).
        case event(EventTrigger)
        /// A jq expression over `{event, step, state}` (the app cannot evaluate it: it is
        /// served as `{expr: custom}`; prefer `event`).
        case expression(Expression)

        /// The jq the flow's author wrote (for `expr`), mapped to its place in the file.
        var writtenExpression: Expression? {
            if case .expression(let expression) = self { return expression }
            return nil
        }

        /// The event that completes the step, as data (nil for a timer, which no event
        /// completes, and for a jq expression).
        public var event: EventTrigger? {
            switch self {
            case .tap(let element):
                EventTrigger(type: "ui_tap", conditions: [.init("element_id", .equals(.string(element)))])
            case .swipe(let direction):
                EventTrigger(type: "ui_swipe", conditions: [.init("direction", .equals(.string(direction)))])
            case .visible(let element):
                EventTrigger(type: "ui_element_visible", conditions: [.init("element_id", .equals(.string(element)))])
            case .event(let trigger): trigger
            case .timer, .expression: nil
            }
        }

        /// The trigger as the API shows it: its shorthand, and with it the `event` that
        /// completes the step (type and payload conditions) for the app to decide itself.
        public var json: JSON {
            var object: JSONObject =
                switch self {
                case .tap(let element): ["tap": .string(element)]
                case .swipe(let direction): ["swipe": .string(direction)]
                case .visible(let element): ["visible": .string(element)]
                case .timer(let seconds): ["timer": .number(seconds)]
                case .event: [:]
                case .expression: ["expr": .string("custom")]
                }
            if let event { object["event"] = event.json }
            return .object(object)
        }
    }

    public var id: String
    public var targetElementID: String
    public var shape: Shape
    /// For rectangles.
    public var cornerRadius: Double
    public var tooltip: FlowText
    public var tooltipPosition: TooltipPosition
    /// The step's page texts by name (`title`, `body`, `button`), in the order written.
    public var texts: [(name: String, text: FlowText)]
    public var trigger: Trigger
    public var canSkip: Bool
    /// The `onboarding_trigger` rule that decides completion.
    public var ruleID: String
    public var location: SourceLocation

    /// The step as the app renders it (the overlay data), its texts in `texts`' locale: the
    /// tooltip's `text` (with its `key` when it is one), and the page's `texts` when it has any.
    public func json(_ texts: RequestTexts) -> JSON {
        var highlight: JSONObject = ["shape": .string(shape.rawValue)]
        if shape == .rectangle { highlight["corner_radius"] = .number(cornerRadius) }
        var tooltip: JSONObject = [
            "text": .string(self.tooltip.rendered(texts)), "placement": .string(tooltipPosition.rawValue),
        ]
        if let key = self.tooltip.key { tooltip["key"] = .string(key) }
        var object: JSONObject = [
            "id": .string(id), "target_element_id": .string(targetElementID), "highlight": .object(highlight),
            "tooltip": .object(tooltip), "completion_trigger": trigger.json, "can_skip": .bool(canSkip),
        ]
        if !self.texts.isEmpty {
            var pages: JSONObject = [:]
            for (name, text) in self.texts where pages[name] == nil { pages[name] = .string(text.rendered(texts)) }
            object["texts"] = .object(pages)
        }
        return .object(object)
    }
}

/// Every onboarding flow of a rule set, in start order (a flow after the one it follows).
public struct OnboardingFlows: Sendable {
    public var flows: [OnboardingFlow]
    /// The texts of the rule set the flows come from (none for flows given alone).
    public var catalog = TextCatalog([])

    public init(_ flows: [OnboardingFlow]) {
        var ordered: [OnboardingFlow] = []
        var placed = Set<String>()
        var remaining = flows
        while !remaining.isEmpty {
            let before = remaining.count
            remaining.removeAll { flow in
                if let after = flow.after, !placed.contains(after), flows.contains(where: { $0.id == after }) {
                    return false
                }
                ordered.append(flow)
                placed.insert(flow.id)
                return true
            }
            if remaining.count == before {  // a cycle (reported by `journey check`): keep file order
                ordered += remaining
                break
            }
        }
        self.flows = ordered
    }

    public init(ruleSet: RuleSet) {
        self.init(ruleSet.documents(of: OnboardingFlow.self))
        catalog = ruleSet.texts
    }

    /// The flows' texts in the default locale: for a view no request asks for (the CLI's
    /// default, a trigger's input).
    public var defaultTexts: RequestTexts {
        RequestTexts.choose(profile: nil, acceptLanguage: nil, catalog: catalog)
    }

    public subscript(id: String) -> OnboardingFlow? {
        flows.first { $0.id == id }
    }
}
