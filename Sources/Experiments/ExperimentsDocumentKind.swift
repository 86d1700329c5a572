import JQ
import RuleEngine
import YAML

/// Reads `experiments:` documents (`Rules/experiments.yaml`) and checks them against the rules
/// that name them: every rule's `experiment` must exist with exactly the rule's variants.
public struct ExperimentsDocumentKind: DocumentKind {
    public let key = "experiments"

    public init() {}

    static let fields = [
        "key", "description", "variations", "weights", "coverage", "hash_attribute", "hash_version", "seed",
        "active", "starts_at", "ends_at", "bucket_version", "metrics", "guardrails", "winner",
    ]

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let document = file.fields(root, what: "experiments document", allowed: ["experiments"]),
            let list = document.values["experiments"]
        else { return nil }
        guard let items = list.items else {
            file.error(
                "invalid_type", "`experiments` must be a list of experiments, found a \(list.kindName)",
                at: file.location(list))
            return nil
        }
        var experiments: [Experiment] = []
        var rules: [RuleDefinition] = []
        var seen: [String: SourceLocation] = [:]
        for item in items {
            let (decoded, conditions) = decodeExperiment(item, file: file)
            rules += conditions
            guard let experiment = decoded else { continue }
            if let first = seen[experiment.key] {
                file.error(
                    "duplicate_experiment", "experiment `\(experiment.key)` is defined twice",
                    at: experiment.location, notes: [.init("first defined here", at: first)])
                continue
            }
            seen[experiment.key] = experiment.location
            experiments.append(experiment)
        }
        return DecodedDocument(value: ExperimentList(experiments: experiments), rules: rules)
    }

    /// The experiment of `node` (nil when it is wrong), and the rules of its metrics' conditions.
    private func decodeExperiment(_ node: YAMLNode, file: DocumentFile) -> (Experiment?, [RuleDefinition]) {
        guard let fields = file.fields(node, what: "experiment", allowed: Self.fields) else { return (nil, []) }
        guard let key = fields.identifier("key", required: true)?.value else { return (nil, []) }
        var ok = true
        var variations: [String] = []
        if let list = fields.strings("variations") {
            variations = list.map(\.value)
            if variations.count < 2 {
                file.error(
                    "invalid_value", "experiment `\(key)` needs at least two variations (the first is the control)",
                    at: fields.location(of: "variations"))
                ok = false
            }
            var names = Set<String>()
            for (name, node) in list where !names.insert(name).inserted {
                file.error("invalid_value", "variation `\(name)` is listed twice", at: file.location(node))
                ok = false
            }
        } else {
            if !fields.has("variations") { fields.missing("variations", "name the variations, the control first") }
            ok = false
        }
        var weights: [Double]?
        if let node = fields.values["weights"] {
            if let items = node.items {
                var values: [Double] = []
                for item in items {
                    guard case .number(let weight)? = try? item.resolvedScalar(), weight.isFinite else {
                        file.error("invalid_type", "every weight must be a number", at: file.location(item))
                        ok = false
                        continue
                    }
                    if weight < 0 {
                        file.error(
                            "invalid_value", "weights must not be negative, found \(weight)", at: file.location(item))
                        ok = false
                    }
                    values.append(weight)
                }
                if !variations.isEmpty, items.count != variations.count {
                    file.error(
                        "invalid_value",
                        "experiment `\(key)` has \(variations.count) variations but \(items.count) weights; give one weight per variation",
                        at: file.location(node))
                    ok = false
                }
                if values.count == items.count, !ExperimentWeights.sumToOne(values) {
                    // GrowthBook would silently split equally: refuse, saying what to write.
                    file.error(
                        "weights_not_normalized",
                        "the weights of `\(key)` sum to \(ExperimentWeights.sumText(values)), not 1: GrowthBook would split equally instead; write weights that sum to 1, such as \(ExperimentWeights.text(ExperimentWeights.normalized(values)))",
                        at: file.location(node))
                    // Kept all the same: what names the experiment is still checked against it.
                }
                weights = values
            } else {
                file.error("invalid_type", "`weights` must be a list of numbers", at: file.location(node))
                ok = false
            }
        }
        let coverage = fields.number("coverage", within: 0...1)?.value ?? 1
        let attribute = fields.string("hash_attribute")
        if let (name, node) = attribute, !Experiment.hashAttributes.contains(name) {
            file.error(
                "invalid_value",
                "unknown hash attribute `\(name)`; experiments hash \(Experiment.hashAttributes.map { "`\($0)`" }.joined(separator: " or "))",
                at: file.location(node))
            ok = false
        }
        let version = fields.integer("hash_version", within: 1...2)?.value ?? 2
        let startsAt = fields.timestamp("starts_at")?.value
        let endsAt = fields.timestamp("ends_at")?.value
        if let startsAt, let endsAt, endsAt <= startsAt {
            file.error(
                "invalid_value", "`ends_at` must be after `starts_at`", at: fields.location(of: "ends_at"))
            ok = false
        }
        let bucketVersion = fields.integer("bucket_version", within: 0...1_000_000)?.value ?? 0
        let winner = fields.identifier("winner")
        if let (name, node) = winner, !variations.isEmpty, !variations.contains(name) {
            file.error(
                "invalid_value",
                "the winner of `\(key)` must be one of its variations (\(variations.joined(separator: ", "))), found `\(name)`",
                at: file.location(node))
            ok = false
        }
        var metricKeys: [String: SourceLocation] = [:]
        var metrics: [ExperimentMetric] = []
        var rules: [RuleDefinition] = []
        for (field, guardrails) in [("metrics", false), ("guardrails", true)] {
            guard let list = fields.values[field] else { continue }
            let decoded = decodeMetrics(list, guardrails: guardrails, experiment: key, seen: &metricKeys, file: file)
            metrics += decoded.metrics
            rules += decoded.rules
            ok = ok && decoded.ok
        }
        guard ok else { return (nil, rules) }
        let experiment = Experiment(
            key: key, description: fields.string("description")?.value, variations: variations, weights: weights,
            coverage: coverage, hashAttribute: attribute?.value ?? "user_id", hashVersion: version,
            seed: fields.string("seed")?.value ?? key, active: fields.bool("active") ?? true, startsAt: startsAt,
            endsAt: endsAt, bucketVersion: bucketVersion, winner: winner?.value,
            metrics: metrics.filter { !$0.isGuardrail },
            guardrails: metrics.filter(\.isGuardrail), location: fields.start)
        return (experiment, rules)
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        let catalog = ExperimentCatalog(documents.compactMap { $0.value as? ExperimentList }.flatMap(\.experiments))
        for rule in context.ruleSet.rules {
            guard let key = rule.experiment else { continue }
            Self.checkVariants(
                of: key, against: rule.variants.map(\.name), what: "rule `\(rule.id)`", at: rule.location,
                catalog: catalog, context: context, rule: rule.id)
        }
        ExperimentReferenceChecks.run(catalog, in: context)
    }

    /// Reports when experiment `key` is missing or its variations are not exactly `names` with
    /// the same control (first).
    public static func checkVariants(
        of key: String, against names: [String], what: String, at location: SourceLocation,
        catalog: ExperimentCatalog, context: DocumentCheckContext, rule: String? = nil
    ) {
        guard let experiment = catalog[key] else {
            let known = catalog.experiments.map(\.key)
            var message = "\(what) names experiment `\(key)`, which is not defined in an `experiments:` document"
            if let suggestion = closestMatch(to: key, in: known) { message += "; did you mean `\(suggestion)`?" }
            context.error("unknown_experiment", message, at: location, rule: rule)
            return
        }
        let variations = experiment.variations
        if Set(variations) != Set(names) || variations.count != names.count {
            let missing = names.filter { !variations.contains($0) }
            let extra = variations.filter { !names.contains($0) }
            var parts: [String] = []
            if !extra.isEmpty {
                parts.append("the experiment has \(extra.map { "`\($0)`" }.joined(separator: ", ")) that \(what) lacks")
            }
            if !missing.isEmpty {
                parts.append(
                    "\(what) has \(missing.map { "`\($0)`" }.joined(separator: ", ")) that the experiment lacks")
            }
            context.error(
                "experiment_mismatch",
                "the variations of experiment `\(key)` (\(variations.joined(separator: ", "))) do not match the variants of \(what) (\(names.joined(separator: ", "))): \(parts.joined(separator: "; "))",
                at: location, rule: rule)
        } else if variations.first != names.first {
            context.error(
                "experiment_mismatch",
                "experiment `\(key)`'s control is `\(variations[0])` but \(what)'s default (first) variant is `\(names[0])`; list them in the same order",
                at: location, rule: rule)
        }
    }
}
