import Features
import RuleEngine

extension BenchmarkOptions {
    /// The rules of `--rules` (with the bundled plugins and every feature's documents), or a
    /// problem listing why they do not load.
    func loadRules() throws -> (ruleSet: RuleSet, evaluator: RuleEvaluator) {
        let loaded = Features.all.loader(rulesDirectory: rulesDirectory, pluginsDirectory: "Plugins").load()
        guard let ruleSet = loaded.ruleSet, let evaluator = loaded.evaluator else {
            throw Problem(
                description: "the rules do not load: \(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        }
        return (ruleSet, evaluator)
    }
}
