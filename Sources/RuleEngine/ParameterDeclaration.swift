import Core
import YAML

/// A parameter a rule or a document declares under `params:`: a knob a product manager turns
/// without writing jq. Rules read its value as `$params.NAME`; a field of a document written
/// as `$params.NAME` takes its value.
///
/// ```yaml
/// params:
///   window:
///     type: duration
///     default: 30d
///     min: 1d
///     max: 365d
///     description: How far back a weight record counts as this block's weigh-in.
/// ```
public struct ParameterDeclaration: Sendable {
    /// The id of what declares it: a rule's id, or a document's (`walk-50k`, `puppy-4-8m`).
    public var owner: String
    /// snake_case, unique in its owner.
    public var name: String
    public var type: ParameterType
    /// What a number counts (`km`, `steps`), for `integer` and `number`.
    public var unit: String?
    public var minimum: ParameterValue?
    public var maximum: ParameterValue?
    public var defaultValue: ParameterValue
    /// One line, written for a product manager.
    public var description: String
    /// Where its name is written.
    public var location: SourceLocation
    /// Where its default is written.
    public var defaultLocation: SourceLocation

    /// `owner.name`, as `journey params`, the values file and the API name it.
    public var qualifiedName: String { "\(owner).\(name)" }

    /// Reads `json` as a value of this parameter: its type, then its range (and, for a date, the
    /// form of its default: a calendar date or a date-time).
    public func value(from json: JSON) -> Result<ParameterValue, ParameterProblem> {
        let parsed: ParameterValue
        switch type.value(from: json) {
        case .failure(let problem): return .failure(problem)
        case .success(let value): parsed = value
        }
        if type == .date, let written = parsed.json.stringValue, let expected = defaultValue.json.stringValue,
            ParameterType.hasTime(written) != ParameterType.hasTime(expected)
        {
            let form =
                ParameterType.hasTime(expected)
                ? "a date-time with its offset, such as \(expected)" : "a calendar date, such as \(expected)"
            return .failure(ParameterProblem(.wrongType, "must be \(form), found `\(written)`"))
        }
        if let problem = rangeProblem(parsed) { return .failure(problem) }
        return .success(parsed)
    }

    func rangeProblem(_ value: ParameterValue) -> ParameterProblem? {
        guard let order = value.order else { return nil }
        let below = minimum.flatMap(\.order).map { order < $0 } ?? false
        let above = maximum.flatMap(\.order).map { order > $0 } ?? false
        guard below || above else { return nil }
        let range: String =
            switch (minimum, maximum) {
            case (let low?, let high?): "between \(shown(low)) and \(shown(high))"
            case (let low?, nil): "at least \(shown(low))"
            case (nil, let high?): "at most \(shown(high))"
            case (nil, nil): ""
            }
        return ParameterProblem(.outOfRange, "must be \(range), found \(shown(value))")
    }

    /// `30d`, `25%`, `50 km`, `19:00`.
    public func shown(_ value: ParameterValue) -> String {
        switch type {
        case .percent: return "\(value.text)%"
        case .integer, .number: return unit.map { "\(value.text) \($0)" } ?? value.text
        default: return value.text
        }
    }
}

/// Reads the `params:` mapping of a rule or a document.
struct ParameterDeclarationDecoder {
    static let fields = ["type", "default", "description", "min", "max", "unit", "values"]
    static let longestDescription = 200

    let file: String
    let collector: DiagnosticCollector

    /// The declarations of `node` for `owner`, and the names declared with a problem (each
    /// reported at its place).
    func decode(_ node: YAMLNode, owner: String) -> (declarations: [ParameterDeclaration], broken: Set<String>) {
        guard let pairs = node.pairs else {
            collector.error(
                "invalid_param_declaration",
                "`params` must map each parameter's name to its declaration (type, default, description), found a \(node.kindName)",
                at: SourceLocation(file: file, node.start))
            return ([], [])
        }
        var declared: [ParameterDeclaration] = []
        var broken: Set<String> = []
        for pair in pairs {
            let at = SourceLocation(file: file, pair.key.start)
            broken.insert(pair.key.scalar?.value ?? "")
            guard let name = pair.key.scalar?.value, Self.isName(name) else {
                collector.error(
                    "invalid_param_declaration",
                    "parameter names are snake_case (a lowercase letter, then lowercase letters, digits and `_`, at most 64), found `\(pair.key.scalar?.value ?? pair.key.kindName)`",
                    at: at)
                continue
            }
            if let first = declared.first(where: { $0.name == name }) {
                collector.error(
                    "duplicate_param", "parameter `\(name)` is declared twice", at: at,
                    notes: [.init("the first is here", at: first.location)])
                continue
            }
            if let declaration = decodeOne(pair.value, name: name, owner: owner, at: at) {
                declared.append(declaration)
                broken.remove(name)
            }
        }
        return (declared, broken)
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 64 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    private func decodeOne(_ node: YAMLNode, name: String, owner: String, at: SourceLocation)
        -> ParameterDeclaration?
    {
        guard
            let fields = YAMLFields(
                node, file: file, what: "parameter declaration", allowed: Self.fields, collector: collector)
        else { return nil }
        func problem(_ message: String, _ key: String) {
            collector.error(
                "invalid_param_declaration", "parameter `\(name)`: \(message)", at: fields.location(of: key))
        }
        guard var type = decodeType(fields, name: name) else { return nil }
        if case .choice = type {
            guard let values = decodeValues(fields, name: name) else { return nil }
            type = .choice(values)
        } else if fields.has("values") {
            problem("`values` lists the choices of an `enum`, not of a \(type.name)", "values")
        }
        var unit: String?
        if let (text, _) = fields.string("unit") {
            if type != .integer, type != .number {
                problem("`unit` is for an integer or a number, not a \(type.name)", "unit")
            } else if text.isEmpty || text.count > 16 || text.contains("\n") {
                problem("`unit` is a short word such as km or steps (1 to 16 characters)", "unit")
            } else {
                unit = text
            }
        }
        let minimum = bound("min", of: type, fields, name: name)
        let maximum = bound("max", of: type, fields, name: name)
        if let low = minimum?.order, let high = maximum?.order, low > high {
            problem("`min` is above `max`", "min")
            return nil
        }
        let description = decodeDescription(fields, name: name)
        guard fields.has("default") else {
            fields.missing("default", "give the value the parameter has when none is set")
            return nil
        }
        guard let json = fields.json("default"), let description else { return nil }
        var declaration = ParameterDeclaration(
            owner: owner, name: name, type: type, unit: unit, minimum: minimum, maximum: maximum,
            defaultValue: ParameterValue(json: .null, jq: .null), description: description, location: at,
            defaultLocation: fields.location(of: "default"))
        switch type.value(from: json) {
        case .failure(let failure):
            collector.error(
                failure.code.rawValue, "parameter `\(name)`: its default \(failure.message)",
                at: fields.location(of: "default"))
            return nil
        case .success(let value):
            if let failure = declaration.rangeProblem(value) {
                collector.error(
                    failure.code.rawValue, "parameter `\(name)`: its default \(failure.message)",
                    at: fields.location(of: "default"))
                return nil
            }
            declaration.defaultValue = value
        }
        return declaration
    }

    private func decodeType(_ fields: YAMLFields, name: String) -> ParameterType? {
        guard let (text, node) = fields.string("type", required: true) else { return nil }
        if let type = ParameterType(name: text) { return type }
        var message = "parameter `\(name)`: unknown type `\(text)`"
        if let suggestion = closestMatch(to: text, in: ParameterType.names) {
            message += "; did you mean `\(suggestion)`?"
        }
        message += "; types: \(listing(ParameterType.names, conjunction: "and"))"
        collector.error("invalid_param_declaration", message, at: fields.location(node))
        return nil
    }

    private func decodeValues(_ fields: YAMLFields, name: String) -> [String]? {
        guard fields.has("values") else {
            fields.missing("values", "an `enum` lists its choices, such as [most_progress, weakest_topic]")
            return nil
        }
        guard let items = fields.strings("values") else { return nil }
        var values: [String] = []
        for (value, node) in items {
            guard ParameterType.isTextKey(value) else {
                collector.error(
                    "invalid_param_declaration",
                    "parameter `\(name)`: a choice is lowercase letters, digits, `_`, `.` and `-`, found `\(value.prefix(64))`",
                    at: fields.location(node))
                return nil
            }
            guard !values.contains(value) else {
                collector.error(
                    "invalid_param_declaration", "parameter `\(name)`: `\(value)` is listed twice",
                    at: fields.location(node))
                return nil
            }
            values.append(value)
        }
        guard values.count >= 2 else {
            collector.error(
                "invalid_param_declaration", "parameter `\(name)`: an `enum` offers at least two values",
                at: fields.location(of: "values"))
            return nil
        }
        return values
    }

    private func bound(_ key: String, of type: ParameterType, _ fields: YAMLFields, name: String) -> ParameterValue? {
        guard fields.has(key) else { return nil }
        guard type.isOrdered else {
            collector.error(
                "invalid_param_declaration", "parameter `\(name)`: a \(type.name) has no `\(key)`",
                at: fields.location(of: key))
            return nil
        }
        guard let json = fields.json(key) else { return nil }
        switch type.value(from: json) {
        case .success(let value): return value
        case .failure(let failure):
            collector.error(
                "invalid_param_declaration", "parameter `\(name)`: `\(key)` \(failure.message)",
                at: fields.location(of: key))
            return nil
        }
    }

    private func decodeDescription(_ fields: YAMLFields, name: String) -> String? {
        guard let (text, node) = fields.string("description", required: true) else { return nil }
        let line = text.trimmingCharacters(in: " \n")
        guard !line.isEmpty, !line.contains("\n"), line.count <= Self.longestDescription else {
            collector.error(
                "invalid_param_declaration",
                "parameter `\(name)`: `description` is one line of at most \(Self.longestDescription) characters, written for a product manager",
                at: fields.location(node))
            return nil
        }
        return line
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let last = text.last, set.contains(last) { text.removeLast() }
        while let first = text.first, set.contains(first) { text.removeFirst() }
        return String(text)
    }
}
