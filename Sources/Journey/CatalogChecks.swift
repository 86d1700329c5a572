import CheckPlugins
import Core
import JQ
import RuleEngine

/// The checks of one catalog against the rest of the rule set.
struct CatalogChecks {
    let catalog: Catalog
    let context: DocumentCheckContext
    let registry: CheckPluginRegistry
    /// The catalog in each locale (or as written, without locale files).
    let localized: [LocalizedCatalog]

    func run() {
        checkBlocks()
        checkWording()
    }

    private func error(_ code: String, _ message: String, at location: SourceLocation) {
        context.error(code, "catalog `\(catalog.id)`: \(message)", at: location)
    }

    private func checkBlocks() {
        let metrics = Set(catalog.metrics.map(\.key))
        var earlier: Set<String> = []
        var ids: Set<String> = []
        // Blocks may need blocks of any branch, as long as no block needs itself through others.
        let all = Dictionary(catalog.blocks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for block in catalog.blocks {
            if !ids.insert(block.id).inserted {
                error("duplicate_block", "block id `\(block.id)` is used twice", at: block.location)
            }
            if !metrics.contains(block.topic) {
                error(
                    "invalid_value",
                    "block `\(block.id)` serves topic `\(block.topic)`, which is not one of the catalog's metrics (\(catalog.metrics.map(\.key).joined(separator: ", ")))",
                    at: block.location)
            }
            for need in block.needs where all[need] == nil {
                error(
                    "invalid_value",
                    "block `\(block.id)` needs `\(need)`, which is not a block of this catalog\(suggestion(need))",
                    at: block.location)
            }
            if let target = block.reminderBlock, all[target] == nil {
                error(
                    "invalid_value",
                    "block `\(block.id)`'s reminder leads to `\(target)`, which is not a block\(suggestion(target))",
                    at: block.location)
            }
            if let target = block.reminderBlock.flatMap({ all[$0] }) {
                checkReminderTarget(target, of: block, all: all)
            }
            earlier.insert(block.id)
            checkCheck(block)
            checkAction(block)
        }
        if let cycle = findCycle(all), let first = cycle.first.flatMap({ all[$0] }) {
            error(
                "cyclic_needs", "blocks need each other in a circle: \(cycle.joined(separator: " → "))",
                at: first.location)
        }
    }

    /// A return reminder fires after its block is completed: the block it leads to must be open
    /// by then, so it may need only that block and what that block needs (itself, transitively).
    private func checkReminderTarget(_ target: Catalog.Block, of block: Catalog.Block, all: [String: Catalog.Block]) {
        var done: Set<String> = []
        var open = [block.id]
        while let id = open.popLast() {
            guard done.insert(id).inserted else { continue }
            open += all[id]?.needs ?? []
        }
        // A need that is not a block is reported on its own.
        let missing = target.needs.filter { !done.contains($0) && all[$0] != nil }
        guard !missing.isEmpty else { return }
        error(
            "invalid_value",
            "block `\(block.id)`'s reminder leads to `\(target.id)`, which would still be locked when it fires: it also needs \(missing.map { "`\($0)`" }.joined(separator: " and ")); lead to a block that needs only `\(block.id)` and what it needs",
            at: block.location)
    }

    /// "; did you mean `x`?" for a block id close to `id`, else nothing.
    private func suggestion(_ id: String, in names: [String]? = nil) -> String {
        closestMatch(to: id, in: names ?? catalog.blocks.map(\.id)).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// The block's check (and fallback check) against its plugin, in each locale: a problem
    /// every locale has is told once, one some locales have names them.
    private func checkCheck(_ block: Catalog.Block) {
        guard registry.plugin(block.checkType) != nil else {
            error(
                "unknown_check_type",
                "block `\(block.id)` has a check of type `\(block.checkType)`, which no plugin provides; types: \(registry.types.joined(separator: ", "))\(suggestion(block.checkType, in: registry.types))",
                at: block.checkLocation)
            return
        }
        var problems: [(code: String, message: String)] = []
        var locales: [String: [String]] = [:]
        for version in localized {
            let check = version.block(block.id)?["check"] ?? block.check
            for problem in checkProblems(block, check: check) {
                let id = problem.code + "\u{0}" + problem.message
                if locales[id] == nil { problems.append(problem) }
                locales[id, default: []].append(version.locale?.texts.locale ?? "")
            }
        }
        for problem in problems {
            let having = locales[problem.code + "\u{0}" + problem.message] ?? []
            let suffix =
                having.count == localized.count ? "" : " (in \(having.map { "`\($0)`" }.joined(separator: ", ")))"
            error(problem.code, problem.message + suffix, at: block.checkLocation)
        }
    }

    private func checkProblems(_ block: Catalog.Block, check: JSON) -> [(code: String, message: String)] {
        guard let plugin = registry.plugin(block.checkType) else { return [] }
        return plugin.problems(in: check, evaluator: context.evaluator).map {
            ("invalid_check", "block `\(block.id)`'s \(block.checkType) check: \($0)")
        } + fallbackProblems(block, check: check)
    }

    /// A fallback check (`check.fallback.check`) is a check of another type, with the line that
    /// offers it and no fallback of its own; its plugin checks its content.
    private func fallbackProblems(_ block: Catalog.Block, check blockCheck: JSON) -> [(code: String, message: String)] {
        guard let fallback = blockCheck["fallback"], fallback["check"] != nil else { return [] }
        let place = "block `\(block.id)`'s fallback check"
        guard let check = FallbackCheck.content(of: blockCheck), let type = FallbackCheck.type(of: blockCheck) else {
            return [("invalid_check", "\(place) must be a check with a `type` (its plugin)")]
        }
        var problems: [(code: String, message: String)] = []
        if fallback["text"]?.stringValue?.isEmpty != false {
            problems.append(
                ("invalid_check", "\(place) needs `fallback.text`, the line that offers it (\"Not nearby? …\")"))
        }
        if type == block.checkType {
            return problems + [
                (
                    "invalid_check",
                    "\(place) is a \(type) check like the block's own; a fallback is a check of another type"
                )
            ]
        }
        if check["fallback"] != nil {
            problems.append(("invalid_check", "\(place) has a fallback of its own; a fallback ends there"))
        }
        guard let plugin = registry.plugin(type) else {
            return problems + [
                (
                    "unknown_check_type",
                    "\(place) is of type `\(type)`, which no plugin provides; types: \(registry.types.joined(separator: ", "))\(suggestion(type, in: registry.types))"
                )
            ]
        }
        return problems
            + plugin.problems(in: check, evaluator: context.evaluator).map {
                ("invalid_check", "\(place) (\(type)): \($0)")
            }
    }

    private func checkAction(_ block: Catalog.Block) {
        guard let id = block.autoComplete else { return }
        guard let rule = context.ruleSet.rule(id) else {
            error(
                "invalid_value",
                "block `\(block.id)`'s action auto-completes with rule `\(id)`, which does not exist\(suggestion(id, in: context.ruleSet.rules.filter { $0.kind.name == "auto_complete" }.map(\.id)))",
                at: block.actionLocation)
            return
        }
        if rule.kind.name != "auto_complete" {
            error(
                "invalid_value",
                "block `\(block.id)`'s action auto-completes with `\(id)`, a \(rule.kind.name) rule, not an auto_complete one",
                at: block.actionLocation)
        }
    }

    /// A chain of block ids that ends where it starts, if any.
    private func findCycle(_ blocks: [String: Catalog.Block]) -> [String]? {
        var state: [String: Int] = [:]  // 1 visiting, 2 done
        var path: [String] = []
        func visit(_ id: String) -> [String]? {
            if state[id] == 2 { return nil }
            if state[id] == 1 {
                let start = path.firstIndex(of: id) ?? 0
                return Array(path[start...]) + [id]
            }
            state[id] = 1
            path.append(id)
            for need in blocks[id]?.needs ?? [] where blocks[need] != nil {
                if let cycle = visit(need) { return cycle }
            }
            path.removeLast()
            state[id] = 2
            return nil
        }
        for id in blocks.keys.sorted() {
            if let cycle = visit(id) { return cycle }
        }
        return nil
    }

    private func checkWording() {
        for wording in context.documents(of: WordingRules.self) {
            let english = wording.forbidden.filter { $0.locale == "en" }
            for text in catalog.texts {
                let lowercased = text.text.lowercased()
                for rule in english where rule.isUsed(inLowercased: lowercased) {
                    var message = "\"\(rule.phrase)\" is not used in our content: \(rule.reason)"
                    if let instead = rule.instead { message += "; instead: \(instead)" }
                    context.error("wording", message, at: text.location)
                }
            }
            // In each locale, with that locale's phrase (written in place, a text is English).
            for version in localized {
                let code = version.locale?.texts.locale ?? "en"
                for rule in wording.required where rule.locale == code {
                    for branch in catalog.branches where branch.id == rule.branch {
                        for block in branch.blocks {
                            let texts = CatalogTexts.texts(in: version.block(block.id) ?? [:])
                            if !texts.contains(where: { WordingRules.contains($0, rule.phrase) }) {
                                let which = version.locale == nil ? "" : " in `\(code)`"
                                context.error(
                                    "wording",
                                    "block `\(block.id)` of the \(branch.id) branch must say \"\(rule.phrase)\"\(which): \(rule.reason)",
                                    at: block.location)
                            }
                        }
                    }
                }
            }
        }
    }
}
