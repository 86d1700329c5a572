import CJQ
import Core

/// Limits applied when reading JSON text into libjq values.
public struct InputLimits: Sendable, Equatable {
    /// The largest accepted input, in bytes (default 4 MiB).
    public var maximumBytes: Int

    public init(maximumBytes: Int = 4 * 1024 * 1024) {
        self.maximumBytes = maximumBytes
    }
}

extension JV {
    /// Parses a stream of JSON values (whitespace-separated, as `jq` reads its input).
    ///
    /// The text must be valid UTF-8 and within `limits`; libjq itself refuses nesting deeper
    /// than 256 levels. Errors name the line and column.
    public static func parseAll(_ bytes: [UInt8], limits: InputLimits = .init()) throws(JQError) -> [JV] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JQError) in try parseAll(buffer, limits: limits) }
        }
        return try result.get()
    }

    /// Parses exactly one JSON value.
    public static func parse(_ text: String, limits: InputLimits = .init()) throws(JQError) -> JV {
        let values = try parseAll(Array(text.utf8), limits: limits)
        guard values.count == 1 else {
            throw JQError(
                .invalidJSON,
                values.isEmpty ? "expected a JSON value, found none" : "expected one JSON value, found \(values.count)")
        }
        return values[0]
    }

    static func parseAll(_ buffer: UnsafeRawBufferPointer, limits: InputLimits) throws(JQError) -> [JV] {
        guard buffer.count <= limits.maximumBytes else {
            throw JQError(
                .inputTooLarge,
                "input is \(ByteCount.format(buffer.count)), over the limit of \(ByteCount.format(limits.maximumBytes))"
            )
        }
        if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
            let (line, column) = UTF8Validation.lineAndColumn(of: bad, in: buffer)
            throw JQError(
                .invalidUTF8,
                "input is not valid UTF-8: byte 0x\(String(buffer[bad], radix: 16, uppercase: true)) at line \(line), column \(column) (offset \(bad))"
            )
        }
        guard buffer.count > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else {
            return []
        }
        guard let parser = jv_parser_new(0) else {
            throw JQError(.invalidJSON, "libjq could not allocate a parser")
        }
        defer { jv_parser_free(parser) }
        // The parser reads from `buffer` without copying; it stays valid for this whole call.
        jv_parser_set_buf(parser, base, Int32(buffer.count), 0)
        var values: [JV] = []
        while true {
            let next = jv_parser_next(parser)  // +1
            if jv_get_kind(next) != JV_KIND_INVALID {
                values.append(JV(consuming: next))
                continue
            }
            guard jv_invalid_has_msg(jv_copy(next)) != 0 else {  // end of input
                jv_free(next)
                return values
            }
            let message = jv_invalid_get_msg(next)  // consumes `next`
            defer { jv_free(message) }
            let text = jv_get_kind(message) == JV_KIND_STRING ? swiftString(message) : "malformed JSON"
            throw JQError(.invalidJSON, "input is not valid JSON: \(text)")
        }
    }
}

/// Human-readable byte counts for messages.
public enum ByteCount {
    /// `512 bytes`, `6.9 KB`, `10.0 MiB`-style text.
    public static func format(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return String(format1(Double(bytes) / 1024)) + " KiB" }
        return String(format1(Double(bytes) / (1024 * 1024))) + " MiB"
    }

    private static func format1(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
    }
}
