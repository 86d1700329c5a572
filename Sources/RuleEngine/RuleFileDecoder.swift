import Core
import JQ
import YAML

/// Turns the YAML of a rule file into ``RuleDefinition``s, reporting every problem.
struct RuleFileDecoder {
    static let ruleFields = [
        "rule", "kind", "description", "events", "reads", "expr", "experiment", "variants", "fallback", "budget",
        "params", "tests",
    ]
    static let testFields = [
        "name", "input", "input_file", "variant", "now", "params", "expect", "expect_outputs", "expect_error",
        "fallback",
    ]
    /// Fields whose text is never a parameter's value: jq, tests, and the declarations.
    static let literalFields: Set<String> = ["rule", "description", "expr", "variants", "fallback", "params", "tests"]
    static let budgetRange: ClosedRange<Duration> = .milliseconds(1)...(.seconds(60))
    /// `reads: {within: …}`: from a second to ten years back.
    static let withinRange: ClosedRange<Duration> = .seconds(1)...(.seconds(3650 * 86_400))

    /// Reads a fixture named by a test's `input_file` (relative to the rule file's folder).
    typealias FixtureReader = (_ path: String, _ ruleFile: String, _ at: SourceLocation) -> JSON?

    let file: String
    let lines: [Substring]
    let collector: DiagnosticCollector
    let readFixture: FixtureReader
    /// The rule kinds a rule may name.
    let kinds: RuleKinds
    /// Top-level keys of the other document kinds, for the message about unknown documents.
    var otherKeys: [String] = []
    /// Where each rule's `params:` go (its own parameters).
    var parameters: ParameterTable?
    /// For the rules of a document: the document's parameters, which they read (they declare none).
    var documentScope: ParameterScope?

    /// The rules of one document: a single rule (`rule:`) or a list (`rules:`).
    func decodeDocument(_ root: YAMLNode) -> [RuleDefinition] {
        if let list = root["rules"], root.pairs?.count == 1 {
            guard let items = list.items else {
                collector.error(
                    "invalid_type", "`rules` must be a list of rules, found a \(list.kindName)",
                    at: SourceLocation(file: file, list.start))
                return []
            }
            return items.compactMap(decodeRule)
        }
        if root["rule"] != nil || root["kind"] != nil || root["expr"] != nil {
            return decodeRule(root).map { [$0] } ?? []
        }
        let others = otherKeys.isEmpty ? "" : ", or a document starting with \(listing(otherKeys))"
        collector.error(
            "unknown_document",
            "expected a rule (a mapping with `rule:`), a list of rules (`rules:`)\(others)",
            at: SourceLocation(file: file, root.start))
        return []
    }

    func decodeRule(_ node: YAMLNode) -> RuleDefinition? {
        let scope = parameterScope(of: node)
        let node = scope.substitute(node, skipping: Self.literalFields)
        guard let fields = YAMLFields(node, file: file, what: "rule", allowed: Self.ruleFields, collector: collector)
        else { return nil }
        let id = fields.string("rule", required: true)
        if let (value, idNode) = id, !Self.isValidID(value) {
            collector.error(
                "invalid_value",
                "rule id `\(value)` must start with a letter or digit and use only lowercase letters, digits, `_`, `-` and `.`",
                at: fields.location(idNode))
        } else if let (value, idNode) = id, let problem = Identifier.problem(value) {
            // Its letters are fine; it must also be an id by the one rule (routes and slots name it).
            collector.error(
                "invalid_value", "\(problem.message(field: "rule")) (it is an id)", at: fields.location(idNode))
        }
        let ruleID = id?.value
        let kind = decodeKind(fields, rule: ruleID)
        let description = fields.string("description")?.value
        let variants = decodeVariants(fields, rule: ruleID)
        let fallback = fields.expression("fallback", lines: lines)
        let budget = fields.duration("budget", within: Self.budgetRange) ?? RuleDefinition.defaultBudget
        let events = decodeEvents(fields, kind: kind, rule: ruleID)
        let reads = decodeReads(fields, kind: kind, rule: ruleID)
        guard let ruleID, let kind, let variants else { return nil }
        var rule = RuleDefinition(
            id: ruleID, kind: kind, description: description, location: fields.start,
            experiment: fields.string("experiment")?.value, variants: variants, fallback: fallback,
            budget: budget, events: events, reads: reads, tests: [])
        if documentScope == nil {
            scope.noteReads(of: rule)
            rule.parameters = scope.jqValues
            rule.parameterFields = scope.fields
        }
        rule.tests = decodeTests(fields, rule: rule, scope: scope)
        return rule
    }

    /// The parameters `node` (a rule) reads: its own, or its document's.
    private func parameterScope(of node: YAMLNode) -> ParameterScope {
        let owner = node["rule"]?.scalar?.value ?? "?"
        if let documentScope {
            if let declared = node["params"] {
                collector.error(
                    "invalid_param_declaration",
                    "a rule of a document reads the document's parameters: declare them under `params:` at the top of the file",
                    at: SourceLocation(file: file, declared.start), rule: owner)
            }
            return documentScope
        }
        guard let parameters else {
            return ParameterScope(owner: owner, file: file, declarations: [], collector: collector)
        }
        return parameters.scope(node["params"], owner: owner, file: file)
    }

    static func isValidID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, first.isLowercaseASCIIAlphanumeric else { return false }
        return id.unicodeScalars.allSatisfy { $0.isLowercaseASCIIAlphanumeric || "_-.".unicodeScalars.contains($0) }
    }

    private func decodeKind(_ fields: YAMLFields, rule: String?) -> RuleKind? {
        guard let (name, node) = fields.string("kind", required: true) else { return nil }
        if let kind = kinds.named(name) { return kind }
        let names = kinds.all.map(\.name)
        var message = "unknown kind `\(name)`"
        if let suggestion = closestMatch(to: name, in: names) { message += "; did you mean `\(suggestion)`?" }
        message += "; kinds: \(listing(names, conjunction: "and"))"
        collector.error("unknown_kind", message, at: fields.location(node), rule: rule)
        return nil
    }

    /// `events: [weight_saved, …]`, for event-driven kinds.
    private func decodeEvents(_ fields: YAMLFields, kind: RuleKind?, rule: String?) -> [String]? {
        guard let node = fields.values["events"] else { return nil }
        let at = fields.location(node)
        guard let kind else { return nil }
        guard kind.eventTypePath != nil else {
            let eventKinds = kinds.all.filter { $0.eventTypePath != nil }.map(\.name)
            collector.error(
                "invalid_value",
                "`events` applies to rules that read app events (\(listing(eventKinds, conjunction: "and"))), not to \(kind.name)",
                at: at, rule: rule)
            return nil
        }
        guard let items = node.items, !items.isEmpty else {
            collector.error("invalid_type", "`events` must be a list of event types", at: at, rule: rule)
            return nil
        }
        var types: [String] = []
        for item in items {
            guard let type = item.scalar?.value, SnakeCaseName.isEventType(type) else {
                collector.error(
                    "invalid_value", "event types are snake_case, found `\(item.scalar?.value ?? item.kindName)`",
                    at: SourceLocation(file: file, item.start), rule: rule)
                continue
            }
            types.append(type)
        }
        return types
    }

    /// `reads: {records: [weight], events: []}`, for kinds with selectable lists.
    private func decodeReads(_ fields: YAMLFields, kind: RuleKind?, rule: String?) -> InputSelection? {
        guard let node = fields.values["reads"], let kind else { return nil }
        let at = fields.location(node)
        let lists = kind.selectableInputs
        guard !lists.isEmpty else {
            let narrowing = kinds.all.filter { !$0.selectableInputs.isEmpty }.map(\.name)
            collector.error(
                "invalid_value",
                "`reads` applies to rules whose input has lists to narrow (\(listing(narrowing, conjunction: "and"))), not to \(kind.name)",
                at: at, rule: rule)
            return nil
        }
        let members = lists.map(\.member)
        let timed = lists.contains { !$0.timeKeys.isEmpty }
        guard node.pairs?.isEmpty == false,
            let selection = YAMLFields(
                node, file: file, what: "`reads`", allowed: members + (timed ? ["within"] : []), collector: collector)
        else {
            if node.pairs?.isEmpty != false {
                collector.error(
                    "invalid_type",
                    "`reads` must map \(listing(members)) to lists of the values the rule reads (\(lists.map(\.what).joined(separator: ", ")))"
                        + (timed ? ", and may give `within` (how far back from `now`, e.g. `30d`)" : ""),
                    at: at, rule: rule)
            }
            return nil
        }
        let within = selection.duration("within", within: Self.withinRange)
        var kept: [String: Set<String>] = [:]
        for list in lists where selection.has(list.member) {
            guard let items = selection.strings(list.member) else { continue }
            var values = Set<String>()
            for (value, item) in items {
                guard SnakeCaseName.isEventType(value) else {
                    collector.error(
                        "invalid_value", "\(list.what) are snake_case names, found `\(value.prefix(64))`",
                        at: SourceLocation(file: file, item.start), rule: rule)
                    continue
                }
                values.insert(value)
            }
            kept[list.member] = values
        }
        return kept.isEmpty && within == nil ? nil : InputSelection(kept, within: within)
    }

    /// `expr:` gives one variant named `default`; `experiment:` + `variants:` give named ones.
    private func decodeVariants(_ fields: YAMLFields, rule: String?) -> [Variant]? {
        let hasExpr = fields.has("expr")
        let hasExperiment = fields.has("experiment")
        switch (hasExpr, fields.values["variants"]) {
        case (true, _?):
            collector.error(
                "conflicting_fields", "a rule has either `expr` or `variants`, not both", at: fields.start, rule: rule)
            return nil
        case (false, nil):
            fields.missing("expr", "give one jq expression in `expr`, or an `experiment` with `variants`")
            return nil
        case (true, nil):
            if hasExperiment {
                fields.missing("variants", "a rule with an `experiment` names its variants under `variants`")
                return nil
            }
            guard let expression = fields.expression("expr", lines: lines) else { return nil }
            return [Variant(name: RuleDefinition.defaultVariantName, expression: expression)]
        case (false, let node?):
            if !hasExperiment {
                fields.missing("experiment", "`variants` are chosen by an experiment: name it in `experiment`")
            }
            return decodeVariantMap(node, rule: rule)
        }
    }

    private func decodeVariantMap(_ node: YAMLNode, rule: String?) -> [Variant]? {
        guard let pairs = node.pairs, !pairs.isEmpty else {
            collector.error(
                "invalid_type", "`variants` must map variant names to jq expressions",
                at: SourceLocation(file: file, node.start), rule: rule)
            return nil
        }
        var variants: [Variant] = []
        for pair in pairs {
            let at = SourceLocation(file: file, pair.key.start)
            guard let name = pair.key.scalar?.value, Self.isValidID(name), !name.contains(".") else {
                collector.error(
                    "invalid_value",
                    "variant names use lowercase letters, digits, `_` and `-`, found `\(pair.key.scalar?.value ?? pair.key.kindName)`",
                    at: at, rule: rule)
                continue
            }
            guard !variants.contains(where: { $0.name == name }) else {
                collector.error("duplicate_variant", "variant `\(name)` is given twice", at: at, rule: rule)
                continue
            }
            guard let scalar = pair.value.scalar else {
                collector.error(
                    "invalid_type", "variant `\(name)` must be a jq expression (text)",
                    at: SourceLocation(file: file, pair.value.start), rule: rule)
                continue
            }
            variants.append(
                Variant(name: name, expression: makeExpression(scalar, node: pair.value, file: file, lines: lines)))
        }
        return variants.isEmpty ? nil : variants
    }

    private func decodeTests(_ fields: YAMLFields, rule: RuleDefinition, scope: ParameterScope) -> [RuleTest] {
        guard let node = fields.values["tests"] else { return [] }
        guard let items = node.items else {
            collector.error(
                "invalid_type", "`tests` must be a list of tests", at: fields.location(node), rule: rule.id)
            return []
        }
        var names: [String: SourceLocation] = [:]
        return items.compactMap { item -> RuleTest? in
            guard let test = decodeTest(item, rule: rule, scope: scope) else { return nil }
            if let first = names[test.name] {
                collector.error(
                    "duplicate_test", "rule `\(rule.id)` has two tests named `\(test.name)`", at: test.location,
                    rule: rule.id, notes: [.init("the first is here", at: first)])
                return nil
            }
            names[test.name] = test.location
            return test
        }
    }

    private func decodeTest(_ node: YAMLNode, rule: RuleDefinition, scope: ParameterScope) -> RuleTest? {
        guard let fields = YAMLFields(node, file: file, what: "test", allowed: Self.testFields, collector: collector)
        else { return nil }
        let name = fields.string("name", required: true)?.value
        let input = decodeInput(fields, rule: rule)
        let variant = fields.string("variant")
        if let (variantName, variantNode) = variant, rule.variant(named: variantName) == nil {
            let names = rule.variants.map(\.name)
            collector.error(
                "unknown_variant",
                rule.hasVariants
                    ? "rule `\(rule.id)` has no variant `\(variantName)`; its variants: \(listing(names, conjunction: "and"))"
                    : "rule `\(rule.id)` has one expression and no variants; remove `variant`",
                at: fields.location(variantNode), rule: rule.id)
        }
        var now: Double?
        if let (text, nowNode) = fields.string("now") {
            now = Timestamp.parse(text)
            if now == nil {
                collector.error(
                    "invalid_value", "`now` must be an ISO 8601 date-time with an offset, e.g. 2026-11-29T09:00:00Z",
                    at: fields.location(nowNode), rule: rule.id)
            }
        }
        if !fields.has("now"), let within = rule.reads?.within {
            collector.warning(
                "test_without_now",
                "the test gives no `now`, but rule `\(rule.id)` reads `within: \(DurationText.format(within))` of it: its input is narrowed at the time the test runs, so its result can change from one day to the next; give `now`",
                at: fields.start, rule: rule.id)
        }
        let usesFallback = fields.bool("fallback") ?? false
        if usesFallback, rule.fallback == nil {
            collector.error(
                "invalid_value", "the test asks for the fallback, but rule `\(rule.id)` has no `fallback`",
                at: fields.start, rule: rule.id)
        }
        let parameters = fields.values["params"].map { scope.testValues($0, file: file) }
        let expectation = decodeExpectation(fields, rule: rule)
        guard let name, let input, let expectation, parameters != .some(nil) else { return nil }
        return RuleTest(
            name: name, location: fields.start, input: input.value, inputFile: input.file,
            variant: variant?.value, now: now, expectation: expectation, usesFallback: usesFallback,
            parameters: parameters ?? nil)
    }

    /// `input`, `input_file`, or both (then `input`'s members are laid over the file's).
    private func decodeInput(_ fields: YAMLFields, rule: RuleDefinition) -> (value: JSON, file: String?)? {
        let inline = fields.has("input") ? fields.json("input") : nil
        if fields.has("input"), inline == nil { return nil }
        guard let (path, pathNode) = fields.string("input_file") else {
            guard let inline else {
                fields.missing("input", "give the rule's input in `input`, or a JSON file in `input_file`")
                return nil
            }
            return (inline, nil)
        }
        guard let fixture = readFixture(path, file, fields.location(pathNode)) else { return nil }
        guard let inline else { return (fixture, path) }
        guard case .object(var base) = fixture, case .object(let overrides) = inline else {
            collector.error(
                "invalid_value", "`input` can only be laid over an `input_file` when both are objects",
                at: fields.start, rule: rule.id)
            return nil
        }
        for (key, value) in overrides { base[key] = value }
        return (.object(base), path)
    }

    private func decodeExpectation(_ fields: YAMLFields, rule: RuleDefinition) -> RuleTest.Expectation? {
        let given = ["expect", "expect_outputs", "expect_error"].filter(fields.has)
        guard given.count == 1 else {
            if given.isEmpty {
                fields.missing("expect", "say what the rule must give: `expect`, `expect_outputs` or `expect_error`")
            } else {
                collector.error(
                    "conflicting_fields", "a test has one of \(listing(given)), not several", at: fields.start,
                    rule: rule.id)
            }
            return nil
        }
        switch given[0] {
        case "expect":
            guard let value = fields.json("expect") else { return nil }
            if let problem = rule.kind.checkResult(value) {
                collector.error(
                    "invalid_expectation",
                    "this test can never pass: a \(rule.kind.name) rule cannot give \(value.truncatedText(80)) (\(problem))",
                    at: fields.location(of: "expect"), rule: rule.id)
                return nil
            }
            return .value(value)
        case "expect_outputs":
            guard let value = fields.json("expect_outputs") else { return nil }
            guard case .array(let outputs) = value else {
                collector.error(
                    "invalid_type", "`expect_outputs` must be a list of the outputs, in order",
                    at: fields.location(of: "expect_outputs"), rule: rule.id)
                return nil
            }
            return .outputs(outputs)
        default:
            return fields.string("expect_error").map { .error($0.value) }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isLowercaseASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("0"..."9").contains(self)
    }
}
