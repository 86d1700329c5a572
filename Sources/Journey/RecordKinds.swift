import Core
import RuleEngine

/// The profile record kinds a rule revision can write. Nothing declares them, so they are
/// derived from what the revision loaded:
///
/// - each catalog block's check and fallback check name theirs (`record: {kind, field}`; the
///   check plugins refuse content that names none, and write that kind);
/// - the `record_added` effects the `event_effects` rules' tests expect, and the `records` the
///   check plugins' answer rules' tests expect (each kind a rule writes has a test showing it);
/// - the kinds any rule reads (`reads: {records: […]}`).
enum RecordKinds {
    static func of(_ ruleSet: RuleSet) -> Set<String> {
        var kinds = Set<String>()
        for catalog in ruleSet.documents(of: Catalog.self) {
            for block in catalog.branches.flatMap(\.blocks) {
                for check in [block.check, FallbackCheck.content(of: block.check)] {
                    if let kind = check?["record"]?["kind"]?.stringValue { kinds.insert(kind) }
                }
            }
        }
        for rule in ruleSet.rules {
            kinds.formUnion(rule.reads?.members["records"] ?? [])
            guard ["event_effects", "check_answer"].contains(rule.kind.name) else { continue }
            for test in rule.tests {
                switch test.expectation {
                case .value(let value): collect(value, into: &kinds)
                case .outputs(let outputs): outputs.forEach { collect($0, into: &kinds) }
                case .error: break
                }
            }
        }
        return kinds
    }

    /// The kinds of the `record_added` effects and `records` entries anywhere in `json`.
    private static func collect(_ json: JSON, into kinds: inout Set<String>) {
        switch json {
        case .object(let object):
            if object["type"] == "record_added", let kind = object["kind"]?.stringValue { kinds.insert(kind) }
            for record in object["records"]?.arrayValue ?? [] {
                if let kind = record["kind"]?.stringValue { kinds.insert(kind) }
            }
            for (_, value) in object { collect(value, into: &kinds) }
        case .array(let items):
            items.forEach { collect($0, into: &kinds) }
        default:
            break
        }
    }
}
