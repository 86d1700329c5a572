import Core

extension Parameter {
    /// The parameter as `journey params --format json` and the admin API show it: its name,
    /// declaration, value (as people write it, and as jq reads it), default, and where each is
    /// written.
    public var json: JSON {
        let declaration = declaration
        var object: JSONObject = [
            "name": .string(name), "owner": .string(declaration.owner), "param": .string(declaration.name),
            "type": .string(declaration.type.name),
        ]
        // An `enum`'s choices are `choices`, as a `block_id`'s are: `values` is what a change sets.
        if case .choice(let values) = declaration.type { object["choices"] = .array(values.map(JSON.string)) }
        if let unit = declaration.type == .percent ? "%" : declaration.unit { object["unit"] = .string(unit) }
        if let minimum = declaration.minimum { object["min"] = minimum.json }
        if let maximum = declaration.maximum { object["max"] = maximum.json }
        object["description"] = .string(declaration.description)
        object["default"] = declaration.defaultValue.json
        object["value"] = value.json
        object["jq_value"] = value.jq
        object["is_default"] = .bool(isDefault)
        object["declared_at"] = declaration.location.json
        object["default_at"] = declaration.defaultLocation.json
        object["value_at"] = setAt.map(\.json) ?? .null
        return .object(object)
    }
}

extension SourceLocation {
    /// `{file, line, column}`.
    public var json: JSON {
        ["file": .string(file), "line": .number(Double(line)), "column": .number(Double(column))]
    }
}
