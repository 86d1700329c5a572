extension JSON {
    /// Compact JSON text in jq's style (`jq -c`): no spaces, keys in insertion order.
    public var compactText: String {
        var out = TextBuffer()
        write(to: &out, indent: nil, level: 0)
        return out.string
    }

    /// Indented JSON text (two spaces, as `jq .` prints), keys in insertion order.
    public var prettyText: String {
        var out = TextBuffer()
        write(to: &out, indent: 2, level: 0)
        return out.string
    }

    /// Compact text cut to at most `limit` characters, ending in `…` when cut: for error messages.
    public func truncatedText(_ limit: Int = 200) -> String {
        let text = compactText
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    /// The text of an array whose elements' texts are `elements` (each valid JSON text).
    public static func arrayText(of elements: [String]) -> String {
        var out = TextBuffer(capacity: elements.reduce(2) { $0 + $1.utf8.count + 1 })
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(utf8Of: element)
        }
        out.append(UInt8(ascii: "]"))
        return out.string
    }

    /// Appends the compact UTF-8 text of this value to `out`.
    public func appendCompactText(to out: inout [UInt8]) {
        var text = TextBuffer()
        write(to: &text, indent: nil, level: 0)
        text.withBytes { out.append(contentsOf: $0) }
    }

    private func write(to out: inout TextBuffer, indent: Int?, level: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .number(let n): JSON.write(number: n, to: &out)
        case .string(let s): JSON.writeQuoted(s, to: &out)
        case .array(let elements):
            guard !elements.isEmpty else {
                out.append("[]")
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent: indent, level: level + 1)
                element.write(to: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else {
                out.append("{}")
                return
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSON.newline(&out, indent: indent, level: level + 1)
                JSON.writeQuoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.write(to: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout TextBuffer, indent: Int?, level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(UInt8(ascii: " "), times: indent * level)
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

    /// Appends ``format(number:)``'s text of `n`: whole numbers (most in rule outputs and
    /// payloads) digit by digit, without making a `String`.
    static func write(number n: Double, to out: inout TextBuffer) {
        guard n == n.rounded(), abs(n) < 1e15, n != 0 else {
            out.append(utf8Of: format(number: n))
            return
        }
        var magnitude = UInt64(abs(n))
        if n < 0 { out.append(UInt8(ascii: "-")) }
        let start = out.count
        while magnitude > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        out.reverse(from: start)
    }

    /// Appends `s` as a JSON string literal with jq's escapes.
    public static func writeQuoted(_ s: String, to out: inout String) {
        var bytes = TextBuffer()
        writeQuoted(s, to: &bytes)
        out += bytes.string
    }

    /// Appends `s` as a JSON string literal (UTF-8) with jq's escapes.
    public static func writeQuoted(_ s: String, to out: inout [UInt8]) {
        var bytes = TextBuffer()
        writeQuoted(s, to: &bytes)
        bytes.withBytes { out.append(contentsOf: $0) }
    }

    /// Appends `s` as a JSON string literal (UTF-8) with jq's escapes: `"`, `\\`, control
    /// characters and DEL are escaped; everything else is written as is.
    static func writeQuoted(_ s: String, to out: inout TextBuffer) {
        TextBuffer.withUTF8(of: s) { writeQuoted(utf8: $0, to: &out) }
    }

    private static func writeQuoted(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout TextBuffer) {
        out.append(UInt8(ascii: "\""))
        var pending = 0
        for i in 0..<bytes.count {
            let c = bytes[i]
            guard c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F else { continue }
            out.append(UnsafeBufferPointer(rebasing: bytes[pending..<i]))
            pending = i + 1
            out.append(UInt8(ascii: "\\"))
            switch c {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append("u00")
                out.append(hex.utf8Start[Int(c >> 4)])
                out.append(hex.utf8Start[Int(c & 0xF)])
            }
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[pending..<bytes.count]))
        out.append(UInt8(ascii: "\""))
    }
}
