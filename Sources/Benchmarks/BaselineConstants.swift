import Core
import RuleEngine

/// A rule's program as the engine compiles it (`$params.NAME` read from constants) and its
/// constants as the JSON text the C baseline compiles in (`jq_compile_args`): both sides run
/// the same program with the same constants.
func baselineProgram(_ rule: RuleDefinition, _ source: String) -> (source: String, constants: String) {
    let (text, constants) = rule.program(for: source)
    return (text, JSON.object(constants).compactText)
}
