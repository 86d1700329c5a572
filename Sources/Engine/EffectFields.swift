import Core

/// An effect object a rule produced that the engine cannot use.
public struct EffectDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads the fields of an effect object, remembering which were read so that the rest can
/// be reported as unknown.
public struct EffectFields {
    public let object: JSONObject
    /// Names read so far (a handful: a list beats hashing).
    var used: [String] = ["type"]

    public init(object: JSONObject) {
        self.object = object
    }

    public mutating func value(_ name: String) -> JSON? {
        used.append(name)
        guard let value = object[name], value != .null else { return nil }
        return value
    }

    public mutating func string(_ name: String) throws(EffectDecodingError) -> String {
        guard let text = try optionalString(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return text
    }

    public mutating func optionalString(_ name: String) throws(EffectDecodingError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw EffectDecodingError(
                "effect field `\(name)` must be a non-empty string, got \(value.truncatedText(60))")
        }
        return text
    }

    public mutating func number(_ name: String) throws(EffectDecodingError) -> Double {
        guard let n = try optionalNumber(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return n
    }

    public mutating func optionalNumber(_ name: String) throws(EffectDecodingError) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let n) = value, n.isFinite else {
            throw EffectDecodingError("effect field `\(name)` must be a number, got \(value.truncatedText(60))")
        }
        return n
    }

    public mutating func optionalBool(_ name: String) throws(EffectDecodingError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let b) = value else {
            throw EffectDecodingError("effect field `\(name)` must be true or false, got \(value.truncatedText(60))")
        }
        return b
    }

    public mutating func object(_ name: String) throws(EffectDecodingError) -> JSONObject {
        guard let object = try optionalObject(name) else { throw EffectDecodingError("effect is missing `\(name)`") }
        return object
    }

    public mutating func optionalObject(_ name: String) throws(EffectDecodingError) -> JSONObject? {
        guard let value = value(name) else { return nil }
        guard case .object(let object) = value else {
            throw EffectDecodingError("effect field `\(name)` must be an object, got \(value.truncatedText(60))")
        }
        return object
    }

    public func finish(_ type: String) throws(EffectDecodingError) {
        for (key, _) in object where !used.contains(key) {
            throw EffectDecodingError("unknown field `\(key)` in a \(type) effect")
        }
    }
}
