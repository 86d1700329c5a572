import RuleEngine

/// `journey check`: a parameter of type `block_id` or `branch_id` names a block or a branch of
/// a catalog, in its value and its default (checked when the rule set has a catalog, as the
/// names rules write are: see ``LiteralReferenceChecks``). The blocks and branches are the
/// choices such a parameter offers (``RuleEngine/ParameterChoices``).
struct ParameterReferenceChecks {
    let catalogs: [Catalog]
    let context: DocumentCheckContext

    func run() {
        guard !catalogs.isEmpty else { return }
        let blocks = catalogs.flatMap { $0.blocks.map(\.id) }
        var branches: [String] = []
        for branch in catalogs.flatMap({ $0.branches.map(\.id) }) where !branches.contains(branch) {
            branches.append(branch)
        }
        context.offerChoices(blocks, for: .blockID)
        context.offerChoices(branches, for: .branchID)
        for parameter in context.ruleSet.parameters {
            let declaration = parameter.declaration
            let (code, what, known): (String, String, [String])
            switch declaration.type {
            case .blockID: (code, what, known) = ("unknown_block", "block id", blocks)
            case .branchID: (code, what, known) = ("unknown_branch", "branch id", branches)
            default: continue
            }
            var checked = [(parameter.value, parameter.valueLocation, "is")]
            if !parameter.isDefault {
                checked.append((declaration.defaultValue, declaration.defaultLocation, "defaults to"))
            }
            for (value, location, verb) in checked {
                guard let name = value.json.stringValue, !known.contains(name) else { continue }
                context.error(
                    code,
                    "parameter `\(declaration.qualifiedName)` \(verb) "
                        + describeUnknown(name, what, notIn: "a \(what.dropLast(3)) of any catalog", known: known),
                    at: location)
            }
        }
    }
}
