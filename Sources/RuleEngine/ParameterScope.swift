import Core
import JQ
import YAML

/// The parameters of one rule or document during a load: what it declares, the value each
/// has in this revision (the values file's, else the default), and which of them its programs
/// and fields read.
final class ParameterScope {
    let owner: String
    let file: String
    private(set) var declarations: [ParameterDeclaration]
    /// Names declared with a problem (reported): neither their reads nor their values are.
    let declaredBroken: Set<String>
    /// The value of each parameter by name, and where the values file sets it (nil: the default).
    private(set) var values: [String: (value: ParameterValue, setAt: SourceLocation?)] = [:]
    /// The names something reads.
    private(set) var read: Set<String> = []
    /// Fields written `$params.NAME` (`reads.within` → `window`).
    private(set) var fields: [String: String] = [:]
    private let collector: DiagnosticCollector

    init(
        owner: String, file: String, declarations: [ParameterDeclaration], declaredBroken: Set<String> = [],
        collector: DiagnosticCollector
    ) {
        self.declaredBroken = declaredBroken
        self.owner = owner
        self.file = file
        self.declarations = declarations
        self.collector = collector
        for declaration in declarations { values[declaration.name] = (declaration.defaultValue, nil) }
    }

    /// Whether the owner declares any parameter.
    var isEmpty: Bool { declarations.isEmpty }

    /// Whether the owner declares parameters, with problems or not.
    var hasDeclarations: Bool { !declarations.isEmpty || !declaredBroken.isEmpty }

    func declaration(_ name: String) -> ParameterDeclaration? {
        declarations.first { $0.name == name }
    }

    /// Sets `name` to the value written at `node` of the values file; a value that does not fit
    /// is reported there, and the default stays.
    func set(_ name: String, _ node: YAMLNode, at location: SourceLocation) {
        guard let declaration = declaration(name) else { return }
        let json: JSON
        do {
            json = try node.json(path: ".values.\(owner).\(name)")
        } catch {
            collector.error("invalid_param_type", error.message, at: SourceLocation(file: location.file, error.mark))
            return
        }
        switch declaration.value(from: json) {
        case .success(let value): values[name] = (value, location)
        case .failure(let problem):
            collector.error(
                problem.code.rawValue, "parameter `\(declaration.qualifiedName)` \(problem.message)", at: location)
        }
    }

    /// The values as jq reads them (`$params`), in declaration order; nil when none is declared.
    var jqValues: JSONObject? {
        guard !declarations.isEmpty else { return nil }
        return JSONObject(declarations.compactMap { d in values[d.name].map { (d.name, $0.value.jq) } })
    }

    /// Every parameter, resolved.
    var parameters: [Parameter] {
        declarations.map { declaration in
            let value = values[declaration.name]
            return Parameter(
                declaration: declaration, value: value?.value ?? declaration.defaultValue, setAt: value?.setAt)
        }
    }

    // MARK: Reads

    /// `node` with every scalar written `$params.NAME` replaced by the parameter's value (keys
    /// of the top mapping in `skipping` are left as they are); an undeclared name is reported.
    func substitute(_ node: YAMLNode, skipping: Set<String> = [], path: String = "") -> YAMLNode {
        var node = node
        switch node.content {
        case .mapping(let pairs):
            node.content = .mapping(
                pairs.map { pair in
                    let key = pair.key.scalar?.value ?? ""
                    if path.isEmpty, skipping.contains(key) { return pair }
                    let inner = path.isEmpty ? key : path + "." + key
                    return YAMLPair(key: pair.key, value: substitute(pair.value, path: inner))
                })
        case .sequence(let items):
            node.content = .sequence(items.map { substitute($0, path: path + "[]") })
        case .scalar(let scalar):
            guard scalar.style == .plain, let name = Self.reference(scalar.value) else { break }
            let at = SourceLocation(file: file, node.start)
            guard let value = values[name]?.value else {
                undeclared(name, at: at)
                break
            }
            read.insert(name)
            fields[path] = name
            node.content = .scalar(value.yamlScalar)
            node.tag = nil
        }
        return node
    }

    /// `window` for the text `$params.window`; nil for any other text.
    static func reference(_ text: String) -> String? {
        guard text.hasPrefix("$params.") else { return nil }
        let name = String(text.dropFirst("$params.".count))
        return ParameterDeclarationDecoder.isName(name) ? name : nil
    }

    /// Notes what the programs of `rule` read of `$params`, reporting a name not declared and a
    /// read no one can check (`$params[$x]`, `$params | keys`).
    func noteReads(of rule: RuleDefinition) {
        var expressions = rule.variants.map(\.expression)
        if let fallback = rule.fallback { expressions.append(fallback) }
        for expression in expressions {
            for found in JQVariableReads.find("params", in: expression.source) {
                let at = expression.location(line: found.line, column: found.column)
                guard let name = found.field else {
                    collector.error(
                        "dynamic_param_read",
                        "read a parameter by its name, as `$params.NAME`: `journey check` can then tell which parameters a program reads",
                        at: at, rule: rule.id)
                    continue
                }
                guard declaration(name) != nil else {
                    undeclared(name, at: at, rule: rule.id)
                    continue
                }
                read.insert(name)
            }
        }
    }

    private func undeclared(_ name: String, at location: SourceLocation, rule: String? = nil) {
        let names = declarations.map(\.name)
        var message = "`$params.\(name)` is not declared"
        if names.isEmpty {
            message += ": `\(owner)` declares no parameters; declare it under `params:` (type, default, description)"
        } else if let suggestion = closestMatch(to: name, in: names) {
            message += " by `\(owner)`; did you mean `\(suggestion)`?"
        } else {
            message += " by `\(owner)`; its parameters: \(listing(names, conjunction: "and"))"
        }
        guard !declaredBroken.contains(name) else { return }  // its declaration's error says it
        collector.addExplaining(Diagnostic(code: "undeclared_param", message, at: location, rule: rule))
    }

    /// Reports each declared parameter nothing reads.
    func reportUnread() {
        for declaration in declarations where !read.contains(declaration.name) {
            collector.error(
                "unused_param",
                "parameter `\(declaration.qualifiedName)` is declared but no program or field reads it: read it as `$params.\(declaration.name)`, or remove it",
                at: declaration.location)
        }
    }

    /// A test's `params:`: each value checked like the values file's; jq values by name.
    func testValues(_ node: YAMLNode, file: String) -> JSONObject? {
        guard let pairs = node.pairs else {
            collector.error(
                "invalid_type", "a test's `params` maps parameter names to values",
                at: SourceLocation(file: file, node.start))
            return nil
        }
        var result = jqValues ?? [:]
        var ok = true
        for pair in pairs {
            let at = SourceLocation(file: file, pair.key.start)
            let name = pair.key.scalar?.value ?? ""
            guard let declaration = declaration(name) else {
                unknown(name, at: at)
                ok = false
                continue
            }
            let valueAt = SourceLocation(file: file, pair.value.start)
            guard let json = try? pair.value.json() else {
                collector.error("invalid_param_type", "parameter `\(name)`: not a value", at: valueAt)
                ok = false
                continue
            }
            switch declaration.value(from: json) {
            case .success(let value): result[name] = value.jq
            case .failure(let problem):
                collector.error(problem.code.rawValue, "parameter `\(name)` \(problem.message)", at: valueAt)
                ok = false
            }
        }
        return ok ? result : nil
    }

    /// Reports a value for a parameter the owner does not declare.
    func unknown(_ name: String, at location: SourceLocation) {
        guard !declaredBroken.contains(name) else { return }
        let names = declarations.map(\.name)
        var message = "`\(owner)` declares no parameter `\(name)`"
        if let suggestion = closestMatch(to: name, in: names) {
            message += "; did you mean `\(suggestion)`?"
        } else if !names.isEmpty {
            message += "; its parameters: \(listing(names, conjunction: "and"))"
        }
        collector.error("unknown_param", message, at: location)
    }
}

/// A parameter of a loaded rule set: its declaration, and the value it has in this revision.
public struct Parameter: Sendable {
    public var declaration: ParameterDeclaration
    public var value: ParameterValue
    /// Where the values file sets it; nil when it has its default.
    public var setAt: SourceLocation?

    /// `owner.name`.
    public var name: String { declaration.qualifiedName }

    /// Where its value is written: in the values file, else its default in the declaration.
    public var valueLocation: SourceLocation { setAt ?? declaration.defaultLocation }

    /// Whether it has its default value.
    public var isDefault: Bool { setAt == nil }
}
