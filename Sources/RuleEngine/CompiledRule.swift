import Core
import JQ

/// The compiled programs of one rule (compiled on first use), and the names its kind requires
/// of the input as libjq strings, built once instead of at every evaluation.
final class CompiledRule {
    /// The definition the programs were compiled from.
    let rule: RuleDefinition
    var variants: [Program?]
    var fallback: Program?
    let inputKeys: [JV]
    /// The rule's `events`, and the path of the event type in its input.
    let events: Set<String>?
    let eventTypeKeys: [JV]
    private let libraryDirectory: String

    init(rule: RuleDefinition, libraryDirectory: String) {
        self.rule = rule
        variants = Array(repeating: nil, count: rule.variants.count)
        inputKeys = rule.kind.requiredMembers.map { JV(JSON.string($0.name)) }
        events = rule.events.map(Set.init)
        eventTypeKeys = (rule.kind.eventTypePath ?? []).map { JV(JSON.string($0)) }
        self.libraryDirectory = libraryDirectory
    }

    func program(variant index: Int, of rule: RuleDefinition) throws(RuleError) -> Program {
        if let program = variants[index] { return program }
        let program = try compile(rule.variants[index].expression, rule: rule, variant: rule.variants[index].name)
        variants[index] = program
        return program
    }

    func fallbackProgram(of rule: RuleDefinition) throws(RuleError) -> Program {
        if let fallback { return fallback }
        guard let expression = rule.fallback else {
            throw RuleError(.noFallback, "rule `\(rule.id)` has no fallback", rule: rule.id)
        }
        let program = try compile(expression, rule: rule, variant: RuleError.fallbackName)
        fallback = program
        return program
    }

    private func compile(_ expression: Expression, rule: RuleDefinition, variant: String) throws(RuleError) -> Program {
        do {
            let (source, constants) = rule.program(for: expression.source)
            return try Program(source, name: rule.id, libraryDirectory: libraryDirectory, constants: constants)
        } catch {
            throw RuleError(error, rule: rule.id, variant: variant)
        }
    }
}
