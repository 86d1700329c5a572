/// What a scalar means under the YAML 1.2 core schema.
public enum ResolvedScalar: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
}

extension YAMLNode {
    /// The standard tags a scalar may carry (`!!str`, `!!int`, …).
    private static let standardTags: Set<String> = [
        "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "!",
    ]

    /// The scalar's value under the YAML 1.2 core schema: `null`/`~`/empty, `true`/`false`,
    /// decimal, `0x` and `0o` integers, floats with `.inf`/`.nan`; quoted and block scalars are
    /// strings. Unlike YAML 1.1, `yes`, `no`, `on` and `off` stay strings.
    /// - Throws: ``YAMLError`` for a tag other than the standard ones, or a tag that does not fit.
    public func resolvedScalar() throws(YAMLError) -> ResolvedScalar? {
        guard let scalar else { return nil }
        if let tag, !Self.standardTags.contains(tag) {
            throw YAMLError("unsupported YAML tag \(tag)", at: start)
        }
        switch tag {
        case "tag:yaml.org,2002:str", "!": return .string(scalar.value)
        case nil: break
        case let tag?:
            guard let resolved = Self.resolvePlain(scalar.value) else {
                throw YAMLError("`\(scalar.value)` does not match its tag \(tag)", at: start)
            }
            return resolved
        }
        guard scalar.style == .plain else { return .string(scalar.value) }
        return Self.resolvePlain(scalar.value) ?? .string(scalar.value)
    }

    /// Null, boolean or number for a plain scalar; nil when it is a string.
    static func resolvePlain(_ text: String) -> ResolvedScalar? {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .number(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .number(-.infinity)
        case ".nan", ".NaN", ".NAN": return .number(.nan)
        default: break
        }
        if text.hasPrefix("0x"), let value = Int64(text.dropFirst(2), radix: 16) { return .number(Double(value)) }
        if text.hasPrefix("0o"), let value = Int64(text.dropFirst(2), radix: 8) { return .number(Double(value)) }
        return isDecimal(text) ? Double(text).map(ResolvedScalar.number) : nil
    }

    /// `[-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
    private static func isDecimal(_ text: String) -> Bool {
        var chars = Substring(text).utf8[...]
        func digits() -> Int {
            var count = 0
            while let c = chars.first, c >= 0x30, c <= 0x39 {
                chars = chars.dropFirst()
                count += 1
            }
            return count
        }
        if let c = chars.first, c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { chars = chars.dropFirst() }
        var mantissa = digits()
        if chars.first == UInt8(ascii: ".") {
            chars = chars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = chars.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            chars = chars.dropFirst()
            if let c = chars.first, c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { chars = chars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return chars.isEmpty
    }
}
