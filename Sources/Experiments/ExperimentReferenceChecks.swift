import JQ
import RuleEngine

/// `journey check`: the experiment keys that rules name as string literals exist. A rule names
/// one with a plain literal compared (`==`, `!=`) with a path ending in `experiment` (the
/// `experiment_viewed` analytics event's property), or as the value of `experiment` in an object
/// it builds. Checked when there are experiments.
enum ExperimentReferenceChecks {
    static func run(_ catalog: ExperimentCatalog, in context: DocumentCheckContext) {
        let keys = catalog.experiments.map(\.key)
        guard !keys.isEmpty else { return }
        for literal in context.ruleLiterals where namesExperiment(literal.use) && !keys.contains(literal.value) {
            context.unknownName(
                literal, code: "unknown_experiment", what: "experiment",
                notIn: "defined in an `experiments:` document", known: keys)
        }
    }

    static func namesExperiment(_ use: JQLiteral.Use) -> Bool {
        switch use {
        case .compared(let path): path.last == "experiment"
        case .objectValue(let key): key == "experiment"
        case .result, .arrayElement: false
        }
    }
}
