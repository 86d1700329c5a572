import CheckPlugins
import JQ
import RuleEngine

/// `journey check`: the block ids, check types and catalog ids that rules name as string
/// literals exist in the rule set. A rule names one (``JQLiteral/Use``) with a plain literal:
/// - compared (`==`, `!=`) with a path ending in `block_id`, `block.id` or `blocks[…].id` (a
///   block), `check_type` or `check.type` (a check type), `catalog` or `catalog_id` (a catalog);
///   in a rule whose kind outputs a block id (`recommendation`), also with exactly `.id` (its
///   input's items are blocks; a branch id is accepted there too);
/// - as the value of `block_id`, `check_type`, `catalog` or `catalog_id` in an object it builds;
/// - in a `recommendation` rule, as a possible output (``JQLiteral/Use/result``), or as an
///   element of an all-literal array of which one element is a block id or within two edits of
///   one (a list of blocks, not of topics).
/// Each namespace is checked when the rule set defines any (a catalog, a check type).
struct LiteralReferenceChecks {
    let catalogs: [Catalog]
    let registry: CheckPluginRegistry
    let context: DocumentCheckContext

    private var blocks: [String] { catalogs.flatMap { $0.blocks.map(\.id) } }
    private var branches: [String] { catalogs.flatMap { $0.branches.map(\.id) } }

    func run() {
        let blocks = self.blocks
        let branches = self.branches
        // The elements of each array, by rule, variant and the array's number in its expression.
        var arrays: [String: [RuleLiteral]] = [:]
        for literal in context.ruleLiterals {
            let outputsBlock = literal.rule.kind.name == RuleKind.recommendation.name
            switch literal.use {
            case .compared(let path):
                if Self.namesBlock(path) {
                    check(literal, isBlock: blocks)
                } else if outputsBlock, path == ["id"], !branches.contains(literal.value) {
                    check(literal, isBlock: blocks)
                } else if Self.namesCheckType(path) {
                    checkType(literal)
                } else if Self.namesCatalog(path) {
                    checkCatalog(literal)
                }
            case .objectValue(let key):
                if key == "block_id" { check(literal, isBlock: blocks) }
                if key == "check_type" { checkType(literal) }
                if key == "catalog" || key == "catalog_id" { checkCatalog(literal) }
            case .result:
                if outputsBlock { check(literal, isBlock: blocks) }
            case .arrayElement(let array):
                if outputsBlock {
                    arrays["\(literal.rule.id)\u{0}\(literal.variant)\u{0}\(array)", default: []].append(literal)
                }
            }
        }
        for key in arrays.keys.sorted() {
            let list = arrays[key] ?? []
            guard list.contains(where: { Self.looksLikeBlock($0.value, blocks) }) else { continue }
            for literal in list { check(literal, isBlock: blocks) }
        }
    }

    private static func looksLikeBlock(_ value: String, _ blocks: [String]) -> Bool {
        blocks.contains(value) || closestMatch(to: value, in: blocks) != nil
    }

    /// `….block_id`, `….block.id`, `….blocks[…].id` (also from `$block`/`$blocks`).
    static func namesBlock(_ path: [String]) -> Bool {
        guard let last = path.last else { return false }
        if last == "block_id" { return true }
        guard last == "id" else { return false }
        let parents = path.dropLast().filter { $0 != "[]" }.map { $0.hasPrefix("$") ? String($0.dropFirst()) : $0 }
        return parents.last == "block" || parents.last == "blocks"
    }

    static func namesCheckType(_ path: [String]) -> Bool {
        path.last == "check_type" || path.suffix(2) == ["check", "type"]
    }

    static func namesCatalog(_ path: [String]) -> Bool {
        path.last == "catalog" || path.last == "catalog_id"
    }

    private func check(_ literal: RuleLiteral, isBlock blocks: [String]) {
        guard !catalogs.isEmpty, !blocks.contains(literal.value) else { return }
        context.unknownName(
            literal, code: "unknown_block", what: "block id", notIn: "a block of any catalog", known: blocks)
    }

    private func checkType(_ literal: RuleLiteral) {
        let types = registry.types
        guard !types.isEmpty, !types.contains(literal.value) else { return }
        context.unknownName(
            literal, code: "unknown_check_type", what: "check type", notIn: "a type any plugin provides",
            known: types)
    }

    private func checkCatalog(_ literal: RuleLiteral) {
        let ids = catalogs.map(\.id)
        guard !ids.isEmpty, !ids.contains(literal.value) else { return }
        context.unknownName(literal, code: "unknown_catalog", what: "catalog id", notIn: "a catalog", known: ids)
    }
}
