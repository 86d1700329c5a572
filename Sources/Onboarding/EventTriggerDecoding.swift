import Core
import RuleEngine
import YAML

/// Reads an `event` completion trigger: `{event: ui_*, where: {member: value | {equals|prefix|matches: …}}}`.
enum EventTriggerDecoding {
    static func decode(_ fields: YAMLFields, file: DocumentFile) -> EventTrigger? {
        guard let (type, typeNode) = fields.string("event") else { return nil }
        guard type.hasPrefix("ui_"), type.count > 3 else {
            file.error(
                "invalid_value",
                "`event` names a screen event (ui_tap, ui_text_changed, …: onboarding looks only at ui_* events), found `\(type)`",
                at: file.location(typeNode))
            return nil
        }
        var trigger = EventTrigger(type: type)
        guard let whereNode = fields.values["where"] else { return trigger }
        guard let pairs = whereNode.pairs else {
            file.error(
                "invalid_type", "`where` maps payload members to conditions, found a \(whereNode.kindName)",
                at: file.location(whereNode))
            return nil
        }
        var ok = true
        for pair in pairs {
            guard let member = pair.key.scalar?.value, !member.isEmpty else {
                file.error("invalid_type", "`where` keys are payload member names", at: file.location(pair.key))
                ok = false
                continue
            }
            guard let condition = condition(pair.value, member: member, file: file) else {
                ok = false
                continue
            }
            trigger.conditions.append(.init(member, condition))
        }
        return ok ? trigger : nil
    }

    /// A value (the member equals it) or `{equals|prefix|matches: …}`.
    private static func condition(_ node: YAMLNode, member: String, file: DocumentFile) -> EventTrigger.Condition? {
        guard let pairs = node.pairs else {
            guard node.scalar != nil, let value = file.json(node) else {
                file.error(
                    "invalid_type", "`where.\(member)` is a value or one of {equals: …}, {prefix: …}, {matches: …}",
                    at: file.location(node))
                return nil
            }
            return .equals(value)
        }
        guard pairs.count == 1, let name = pairs[0].key.scalar?.value,
            EventTrigger.Condition.names.contains(name)
        else {
            file.error(
                "invalid_value", "`where.\(member)` has exactly one of equals, prefix or matches",
                at: file.location(node))
            return nil
        }
        let valueNode = pairs[0].value
        if name == "equals" {
            guard valueNode.scalar != nil, let value = file.json(valueNode) else {
                file.error("invalid_type", "`where.\(member).equals` is a value", at: file.location(valueNode))
                return nil
            }
            return .equals(value)
        }
        guard let text = valueNode.scalar?.value, !text.isEmpty else {
            file.error("invalid_type", "`where.\(member).\(name)` is a non-empty text", at: file.location(valueNode))
            return nil
        }
        if name == "prefix" { return .prefix(text) }
        if let problem = EventTrigger.patternProblem(text) {
            file.error("invalid_value", "`where.\(member)`: \(problem)", at: file.location(valueNode))
            return nil
        }
        return .matches(text)
    }
}
