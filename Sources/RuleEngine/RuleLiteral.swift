import JQ

/// A plain string literal with which a rule's jq names something (``JQLiteral/Use``), placed in
/// the rule's file: what features check against what exists (a block id, a check type…).
public struct RuleLiteral: Sendable {
    public var rule: RuleDefinition
    /// The variant whose expression holds it, or `fallback`.
    public var variant: String
    public var value: String
    public var use: JQLiteral.Use
    /// Where its opening quote is.
    public var location: SourceLocation

    /// "rule `r`", "rule `r` (variant `v`)" or "rule `r` (its fallback)", for messages.
    public var subject: String { RuleError.subject(rule: rule.id, variant: variant) }
}

extension RuleDefinition {
    /// The literals of every variant and of the fallback that name something, in file order.
    public var literals: [RuleLiteral] {
        var expressions = variants.map { ($0.name, $0.expression) }
        if let fallback { expressions.append((RuleError.fallbackName, fallback)) }
        return expressions.flatMap { variant, expression in
            JQLiterals.find(in: expression.source).map { literal in
                RuleLiteral(
                    rule: self, variant: variant, value: literal.value, use: literal.use,
                    location: expression.location(line: literal.line, column: literal.column))
            }
        }
    }
}

extension RuleSet {
    /// The literals of every rule that name something (see ``RuleDefinition/literals``).
    public var literals: [RuleLiteral] { rules.flatMap(\.literals) }
}

extension DocumentCheckContext {
    /// Reports `literal`, which names `what` (“block id”) that is not among `known`, as `code`:
    /// "rule `r` names block id `x`, which is not a block of any catalog; did you mean `y`?".
    public func unknownName(
        _ literal: RuleLiteral, code: String, what: String, notIn place: String, known: [String]
    ) {
        error(
            code, "\(literal.subject) names " + describeUnknown(literal.value, what, notIn: place, known: known),
            at: literal.location, rule: literal.rule.id)
    }
}

/// "<what> `x`, which is not <place>; did you mean `y`?" — or, with nothing close, the first
/// few of `known` to write instead.
public func describeUnknown(_ name: String, _ what: String, notIn place: String, known: [String]) -> String {
    var text = "\(what) `\(name)`, which is not \(place)"
    if let suggestion = closestMatch(to: name, in: known) {
        text += "; did you mean `\(suggestion)`?"
    } else if !known.isEmpty {
        let shown = known.prefix(8).map { "`\($0)`" }.joined(separator: ", ")
        text += "; write one of \(shown)\(known.count > 8 ? " (or \(known.count - 8) more)" : "")"
    }
    return text
}
