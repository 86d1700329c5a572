import Core
import FeatureKit
import HTTP

/// A kept step's element, highlight and completion trigger as a `PUT` of its flow changes them:
/// each field the request gives that differs from the step as written, as the YAML of its new
/// line. These changes keep the flow's version (the steps stay the same list): users who did
/// the step do not see it again, those who have not reached it meet the changed one.
struct KeptStepEdit {
    /// Field name → its new YAML value, only for the fields that change.
    private(set) var fields: [(name: String, yaml: String)] = []

    /// Reads `target_element_id`, `highlight_shape` and `trigger` of `step` (problems kept in it).
    init(_ step: inout FieldReader, existing: OnboardingStep, events: [AppEvent]) {
        if step.has("target_element_id"), let target = try? step.string("target_element_id", maxLength: 200),
            target != existing.targetElementID
        {
            fields.append(("target_element_id", JSON.string(target).compactText))
        }
        if step.has("highlight_shape"), let name = try? step.string("highlight_shape") {
            if let shape = OnboardingStep.Shape(rawValue: name) {
                if shape != existing.shape {
                    let radius = existing.shape == .rectangle ? existing.cornerRadius : 12
                    let yaml =
                        shape == .circle
                        ? "circle" : "{shape: rectangle, corner_radius: \(JSON.number(radius).compactText)}"
                    fields.append(("highlight", yaml))
                }
            } else {
                step.fail("highlight_shape", .invalid, "is circle or rectangle, got `\(name)`")
            }
        }
        if step.has("trigger"), let trigger = FlowDraft.trigger(in: &step, events: events),
            trigger != Self.yaml(existing.trigger)
        {
            fields.append(("completion_trigger", trigger))
        }
    }

    /// The trigger as `FlowDraft.trigger` writes it, or nil for one it cannot write.
    static func yaml(_ trigger: OnboardingStep.Trigger) -> String? {
        switch trigger {
        case .tap(let element): "{tap: \(JSON.string(element).compactText)}"
        case .swipe(let direction): "{swipe: \(direction)}"
        case .visible(let element): "{visible: \(JSON.string(element).compactText)}"
        case .timer(let seconds): "{timer: \(JSON.number(seconds).compactText)}"
        case .event(let event):
            if event.conditions.count == 1, event.conditions[0].member == "element_id",
                case .equals(.string(let element)) = event.conditions[0].condition
            {
                "{event: \(event.type), where: {element_id: \(JSON.string(element).compactText)}}"
            } else {
                nil
            }
        case .expression: nil
        }
    }

    /// `block` (a step's lines, its `- id:` first) with each changed field's line replaced
    /// (its continuation lines too), or added at the end when the step did not write it.
    func apply(to block: [String]) -> [String] {
        var lines = block
        let dash = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
        let indent = String(repeating: " ", count: dash + 2)
        for (name, yaml) in fields {
            let line = indent + name + ": " + yaml
            guard let start = lines.indices.dropFirst().first(where: { lines[$0].hasPrefix(indent + name + ":") })
            else {
                lines.append(line)
                continue
            }
            var end = start + 1
            while end < lines.count, lines[end].prefix(while: { $0 == " " }).count > dash + 2 { end += 1 }
            lines.replaceSubrange(start..<end, with: [line])
        }
        return lines
    }
}
