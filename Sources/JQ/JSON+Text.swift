extension JSON {
    /// Compact JSON text in jq's style (`jq -c`): no spaces, keys in insertion order.
    public var compactText: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON text (two spaces, as `jq .` prints), keys in insertion order.
    public var prettyText: String {
        var out = ""
        write(to: &out, indent: 2, level: 0)
        return out
    }

    /// Compact text cut to at most `limit` characters, ending in `…` when cut: for error messages.
    public func truncatedText(_ limit: Int = 200) -> String {
        let text = compactText
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    private func write(to out: inout String, indent: Int?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += JSON.format(number: n)
        case .string(let s): JSON.writeQuoted(s, to: &out)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                JSON.newline(&out, indent: indent, level: level + 1)
                element.write(to: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent: indent, level: level)
            out += "]"
        case .object(let object):
            guard !object.isEmpty else { out += "{}"; return }
            out += "{"
            var first = true
            for (key, value) in object {
                if !first { out += "," }
                first = false
                JSON.newline(&out, indent: indent, level: level + 1)
                JSON.writeQuoted(key, to: &out)
                out += indent == nil ? ":" : ": "
                value.write(to: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent: indent, level: level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, indent: Int?, level: Int) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: " ", count: indent * level)
    }

    /// A number as jq prints it: integers without a fraction, NaN as null, ±infinity as ±DBL_MAX.
    public static func format(number n: Double) -> String {
        if n.isNaN { return "null" }
        if n.isInfinite { return n > 0 ? "1.7976931348623157e+308" : "-1.7976931348623157e+308" }
        if n == n.rounded(), abs(n) < 1e17 {
            if n == 0 { return n.sign == .minus ? "-0" : "0" }
            return String(Int64(n))
        }
        return n.description
    }

    /// Appends `s` as a JSON string literal with jq's escapes.
    public static func writeQuoted(_ s: String, to out: inout String) {
        out += "\""
        var pendingStart = s.unicodeScalars.startIndex
        var i = pendingStart
        let scalars = s.unicodeScalars
        while i < scalars.endIndex {
            let c = scalars[i]
            let escape: String?
            switch c.value {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0..<0x20, 0x7F:
                let hex = String(c.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escape = nil
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[pendingStart..<i])
                out += escape
                pendingStart = scalars.index(after: i)
            }
            i = scalars.index(after: i)
        }
        out.unicodeScalars.append(contentsOf: scalars[pendingStart..<scalars.endIndex])
        out += "\""
    }
}
