import Core
import YAML

/// Every parameter of one load: the values file (`Rules/params.yaml`) read first, then each
/// rule's and document's declarations as their files are decoded; at the end, values that name
/// no parameter and parameters nothing reads are reported.
final class ParameterTable {
    /// The values file, relative to the rules directory.
    static let valuesFile = "params.yaml"

    private let collector: DiagnosticCollector
    /// Values by owner, then name: the value's node and where its name is.
    private var written: [String: [String: (node: YAMLNode, key: SourceLocation)]] = [:]
    private var ownerPlaces: [String: SourceLocation] = [:]
    private var scopes: [ParameterScope] = []

    init(collector: DiagnosticCollector) {
        self.collector = collector
    }

    /// Reads the values file's text (`file` is its display path).
    func readValues(_ text: String, file: String) {
        let root: YAMLNode
        do {
            guard let first = try YAMLParser.parse(text).first else { return }
            root = first
        } catch {
            collector.error("yaml_syntax", error.message, at: SourceLocation(file: file, error.mark))
            return
        }
        guard let pairs = root.pairs, pairs.count == 1, pairs[0].key.scalar?.value == "values" else {
            collector.error(
                "invalid_param_values",
                "the values file holds one mapping, `values:`, of each rule or document id to its parameters' values",
                at: SourceLocation(file: file, root.start))
            return
        }
        let values = pairs[0].value
        if values.scalar != nil, case .null? = try? values.resolvedScalar() { return }  // `values:` alone
        guard let owners = values.pairs else {
            collector.error(
                "invalid_param_values", "`values` maps each rule or document id to its parameters' values",
                at: SourceLocation(file: file, values.start))
            return
        }
        for ownerPair in owners {
            let ownerAt = SourceLocation(file: file, ownerPair.key.start)
            guard let owner = ownerPair.key.scalar?.value, let entries = ownerPair.value.pairs else {
                collector.error(
                    "invalid_param_values",
                    "each id under `values` maps parameter names to values, such as `window: 30d`", at: ownerAt)
                continue
            }
            if let first = ownerPlaces[owner] {
                collector.error(
                    "duplicate_field", "`\(owner)` is given twice in the values file", at: ownerAt,
                    notes: [.init("the first is here", at: first)])
                continue
            }
            ownerPlaces[owner] = ownerAt
            var byName: [String: (node: YAMLNode, key: SourceLocation)] = [:]
            for entry in entries {
                let at = SourceLocation(file: file, entry.key.start)
                let name = entry.key.scalar?.value ?? ""
                if let first = byName[name] {
                    collector.error(
                        "duplicate_field", "`\(owner).\(name)` is given twice", at: at,
                        notes: [.init("the first is here", at: first.key)])
                    continue
                }
                byName[name] = (entry.value, at)
            }
            written[owner] = byName
        }
    }

    /// The scope of `owner`, with the declarations of `node` (a `params:` mapping, or nil for
    /// none) and the values the values file gives them.
    func scope(_ node: YAMLNode?, owner: String, file: String) -> ParameterScope {
        let (declarations, broken) =
            node.map { ParameterDeclarationDecoder(file: file, collector: collector).decode($0, owner: owner) }
            ?? ([], [])
        let scope = ParameterScope(
            owner: owner, file: file, declarations: declarations, declaredBroken: broken, collector: collector)
        if !declarations.isEmpty {
            if let other = scopes.first(where: { $0.owner == owner && !$0.isEmpty }) {
                collector.error(
                    "duplicate_param_owner",
                    "`\(owner)` declares parameters in two places; the values file could not tell them apart",
                    at: declarations[0].location,
                    notes: [.init("the other is here", at: other.declarations[0].location)])
            }
            for (name, entry) in written[owner] ?? [:] {
                scope.set(name, entry.node, at: SourceLocation(file: entry.key.file, entry.node.start))
            }
        }
        scopes.append(scope)
        return scope
    }

    /// Reports values that name no declared parameter and parameters nothing reads; returns
    /// every parameter in file order.
    func finish() -> [Parameter] {
        for (owner, entries) in written.sorted(by: { $0.key < $1.key }) {
            let owned = scopes.first { $0.owner == owner && $0.hasDeclarations }
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) where owned?.declaration(name) == nil {
                if let owned {
                    owned.unknown(name, at: entry.key)
                } else {
                    let owners = scopes.filter { !$0.isEmpty }.map(\.owner)
                    var message = "no rule or document `\(owner)` declares parameters"
                    if let suggestion = closestMatch(to: owner, in: owners) {
                        message += "; did you mean `\(suggestion)`?"
                    }
                    collector.error("unknown_param", message, at: ownerPlaces[owner] ?? entry.key)
                    break
                }
            }
        }
        for scope in scopes { scope.reportUnread() }
        return scopes.flatMap(\.parameters).sorted { $0.declaration.location < $1.declaration.location }
    }
}

extension YAMLNode {
    /// The mapping without the pair whose key is `key`.
    func removing(_ key: String) -> YAMLNode {
        guard let pairs else { return self }
        var node = self
        node.content = .mapping(pairs.filter { $0.key.scalar?.value != key })
        return node
    }
}
