import Core
import RuleEngine
import YAML

/// An experiment's `metrics:` and `guardrails:`, each a list of
/// `{key, event, where?, within}`; every `where` becomes an `experiment_metric` rule.
extension ExperimentsDocumentKind {
    static let metricFields = ["key", "event", "where", "within"]

    /// The longest window a metric may have.
    static let longestWindow: Duration = .seconds(365 * 86_400)

    /// The metrics of `list` (the value of `metrics` or `guardrails` of experiment `experiment`),
    /// with the rules of their conditions (compiled, and their problems reported, even when
    /// another part is wrong); `ok` is false when any is wrong (each problem reported). `seen`
    /// holds the keys of the experiment's metrics so far.
    func decodeMetrics(
        _ list: YAMLNode, guardrails: Bool, experiment: String, seen: inout [String: SourceLocation],
        file: DocumentFile
    ) -> (metrics: [ExperimentMetric], rules: [RuleDefinition], ok: Bool) {
        let field = guardrails ? "guardrails" : "metrics"
        guard let items = list.items else {
            file.error(
                "invalid_type",
                "`\(field)` must be a list of metrics ({key, event, where, within}), found a \(list.kindName)",
                at: file.location(list))
            return ([], [], false)
        }
        var ok = true
        var metrics: [ExperimentMetric] = []
        var rules: [RuleDefinition] = []
        for item in items {
            guard let fields = file.fields(item, what: guardrails ? "guardrail" : "metric", allowed: Self.metricFields)
            else {
                ok = false
                continue
            }
            guard let (key, keyNode) = fields.string("key", required: true) else {
                ok = false
                continue
            }
            guard SnakeCaseName.matches(key, maximumBytes: 64) else {
                file.error(
                    "invalid_value", "metric key `\(key)` must be snake_case (a lowercase letter, then a-z, 0-9 and _)",
                    at: file.location(keyNode))
                ok = false
                continue
            }
            if let first = seen[key] {
                file.error(
                    "duplicate_metric", "experiment `\(experiment)` has two metrics named `\(key)`",
                    at: file.location(keyNode), notes: [.init("first defined here", at: first)])
                ok = false
            } else {
                seen[key] = file.location(keyNode)
            }
            var event: String?
            if let (type, node) = fields.string("event", required: true) {
                if SnakeCaseName.isEventType(type) {
                    event = type
                } else {
                    file.error(
                        "invalid_value",
                        "`event` must be an event type (snake_case, at most \(SnakeCaseName.maximumEventTypeBytes) bytes), found `\(type)`",
                        at: file.location(node))
                }
            }
            var window: Double?
            if fields.has("within") {
                window = fields.duration("within", within: .seconds(1)...Self.longestWindow).map(\.seconds)
            } else {
                fields.missing("within", "how long after the first exposure the event counts, such as `7d`")
            }
            var ruleID: String?
            var condition: String?
            if let expression = file.expression(fields, "where") {
                let id = ExperimentMetric.conditionRuleID(experiment: experiment, metric: key)
                ruleID = id
                condition = expression.source
                rules.append(
                    RuleDefinition(
                        id: id, kind: .experimentMetric,
                        description:
                            "which `\(event ?? "?")` events count toward metric `\(key)` of experiment `\(experiment)`",
                        location: expression.start,
                        variants: [Variant(name: RuleDefinition.defaultVariantName, expression: expression)]))
            } else if fields.has("where") {
                ok = false
            }
            guard let event, let window else {
                ok = false
                continue
            }
            metrics.append(
                ExperimentMetric(
                    key: key, event: event, condition: condition, conditionRuleID: ruleID, window: window,
                    isGuardrail: guardrails, location: fields.start))
        }
        return (metrics, rules, ok)
    }
}
