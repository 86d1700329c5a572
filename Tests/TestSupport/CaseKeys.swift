import YAML

/// The keys a case of a case file may have, so that a misspelt key, or a case that expects
/// nothing, fails when the file is read instead of passing unchecked (a runner reads only the
/// keys it knows, and checks an expectation only when one is given).
///
/// ```swift
/// CaseKeys(expecting: ["expect", "error"], others: ["rule", "input"],
///          parts: ["expect": CaseKeys(others: ["status", "body"])])
/// ```
public struct CaseKeys: Sendable {
    /// The keys that say what must happen: a case gives at least one (none: any will do).
    public var expectations: [String]
    /// The other keys a case may have (its input). `name` is always allowed.
    public var others: [String]
    /// The keys of the mapping under a key (or of each mapping in the list under it).
    public var parts: [String: CaseKeys]

    /// Cases with at least one of `expecting`, any of `others`, and `parts` checked the same way.
    public init(expecting: [String] = [], others: [String] = [], parts: [String: CaseKeys] = [:]) {
        expectations = expecting
        self.others = others
        self.parts = parts
    }

    /// Every key allowed, `name` first.
    var allowed: [String] {
        let listed = ["name"] + expectations + others
        return listed + parts.keys.filter { !listed.contains($0) }.sorted()
    }

    /// Checks the mapping `node` of the case `what`: every problem is a ``CaseFileError`` with
    /// the line of the key (or of the mapping, for a missing expectation).
    func check(_ node: YAMLNode, what: String, in path: String) throws(CaseFileError) {
        guard let pairs = node.pairs else {
            throw CaseFileError("\(what) must be a mapping, found a \(node.kindName)", in: path, at: node.start)
        }
        let allowed = allowed
        var present: Set<String> = []
        for pair in pairs {
            let key = pair.key.scalar?.value ?? ""
            present.insert(key)
            guard allowed.contains(key) else {
                var problem = "\(what) has an unknown key `\(key)`"
                if pair.value.scalar?.value == "", (try? pair.value.resolvedScalar()) == .null {
                    problem += " (a comma in a flow mapping's text? quote the text)"
                }
                throw CaseFileError(
                    "\(problem); its keys are \(allowed.map { "`\($0)`" }.joined(separator: ", "))", in: path,
                    at: pair.key.start)
            }
            guard let keys = parts[key] else { continue }
            if let items = pair.value.items {
                for (index, item) in items.enumerated() {
                    try keys.check(item, what: "\(what), `\(key)` item \(index + 1)", in: path)
                }
            } else if pair.value.pairs != nil {
                try keys.check(pair.value, what: "\(what), `\(key)`", in: path)
            }
        }
        guard expectations.isEmpty || expectations.contains(where: present.contains) else {
            throw CaseFileError(
                "\(what) expects nothing: give \(expectations.map { "`\($0)`" }.joined(separator: " or "))", in: path,
                at: node.start)
        }
    }
}
