import CJQ
import Core

/// One libjq value (`jv`) with exactly one owner, freed when the owner goes away.
///
/// Build the input of a request once (from ``JSON`` or from text) and evaluate every rule of
/// that request on it: building a `jv` costs more than most evaluations.
///
/// Not `Sendable`: libjq's reference counts are not atomic and `jv_copy` is not a deep copy, so
/// a `JV` and every program that reads it must stay on one thread at a time.
public final class JV {
    /// The owned value. Functions that consume a `jv` must be given `jv_copy(raw)`.
    let raw: jv

    /// Takes ownership of `raw` (a +1 reference).
    init(consuming raw: jv) {
        self.raw = raw
    }

    deinit {
        jv_free(raw)
    }

    /// A new reference to the value, for a libjq call that consumes its argument.
    func retained() -> jv {
        jv_copy(raw)
    }

    /// The kind of the value.
    public var kind: Kind {
        Kind(jv_get_kind(raw))
    }

    /// jq's kinds of value.
    public enum Kind: String, Sendable {
        case null, boolean, number, string, array, object, invalid

        init(_ kind: jv_kind) {
            switch kind {
            case JV_KIND_NULL: self = .null
            case JV_KIND_TRUE, JV_KIND_FALSE: self = .boolean
            case JV_KIND_NUMBER: self = .number
            case JV_KIND_STRING: self = .string
            case JV_KIND_ARRAY: self = .array
            case JV_KIND_OBJECT: self = .object
            default: self = .invalid
            }
        }
    }

    /// The member `key` of an object value; nil when missing or when this is not an object.
    public subscript(key: String) -> JV? {
        guard jv_get_kind(raw) == JV_KIND_OBJECT else { return nil }
        // jv_object_get consumes both the object and the key.
        let member = jv_object_get(jv_copy(raw), JV.makeString(key))
        guard jv_get_kind(member) != JV_KIND_INVALID else {
            jv_free(member)
            return nil
        }
        return JV(consuming: member)
    }

    /// The kind of the member `key` of an object value; nil when missing or not an object.
    /// Cheaper than `self[key]?.kind`: no wrapper is allocated.
    public func memberKind(_ key: String) -> Kind? {
        guard jv_get_kind(raw) == JV_KIND_OBJECT else { return nil }
        let member = jv_object_get(jv_copy(raw), JV.makeString(key))  // consumes object and key
        defer { jv_free(member) }
        let kind = jv_get_kind(member)
        return kind == JV_KIND_INVALID ? nil : Kind(kind)
    }

    /// The kind of the member named by the string `key`; nil when missing or not an object.
    public func memberKind(_ key: JV) -> Kind? {
        guard jv_get_kind(raw) == JV_KIND_OBJECT, jv_get_kind(key.raw) == JV_KIND_STRING else { return nil }
        let member = jv_object_get(jv_copy(raw), key.retained())  // consumes object and key
        defer { jv_free(member) }
        let kind = jv_get_kind(member)
        return kind == JV_KIND_INVALID ? nil : Kind(kind)
    }

    /// The string at `path` (member names as libjq strings) inside nested objects; nil when a
    /// member is missing or the value there is not a string.
    public func string(at path: [JV]) -> String? {
        var current = jv_copy(raw)
        for key in path {
            guard jv_get_kind(current) == JV_KIND_OBJECT else {
                jv_free(current)
                return nil
            }
            current = jv_object_get(current, key.retained())  // consumes both; +1 result
        }
        defer { jv_free(current) }
        return jv_get_kind(current) == JV_KIND_STRING ? JV.swiftString(current) : nil
    }

    /// The number of elements of an array (or members of an object); 0 for other kinds.
    public var count: Int {
        switch jv_get_kind(raw) {
        case JV_KIND_ARRAY: Int(jv_array_length(jv_copy(raw)))  // consumes its argument
        case JV_KIND_OBJECT: Int(jv_object_length(jv_copy(raw)))  // consumes its argument
        default: 0
        }
    }

    /// Whether this is an array whose every element is of `kind` (true for an empty array).
    public func isArray(of kind: Kind) -> Bool {
        guard jv_get_kind(raw) == JV_KIND_ARRAY else { return false }
        let length = jv_array_length(jv_copy(raw))  // consumes its argument
        for index in 0..<length {
            let element = jv_array_get(jv_copy(raw), index)  // consumes the array; +1 element
            defer { jv_free(element) }
            if Kind(jv_get_kind(element)) != kind { return false }
        }
        return true
    }

    /// Compact JSON text exactly as `jq -c` prints it.
    public var compactText: String {
        // jv_dump_string consumes its argument and returns a string we own.
        let dumped = jv_dump_string(jv_copy(raw), 0)
        defer { jv_free(dumped) }
        return JV.swiftString(dumped)
    }
}

extension JV {
    /// A jv string from a Swift string (UTF-8, embedded NULs kept).
    static func makeString(_ s: String) -> jv {
        var s = s
        return s.withUTF8 { makeString(utf8: $0) }
    }

    /// A jv string of UTF-8 bytes (libjq replaces invalid sequences, as for any string).
    static func makeString(utf8 bytes: UnsafeBufferPointer<UInt8>) -> jv {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return jv_string("") }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            jv_string_sized($0, Int32(bytes.count))
        }
    }

    /// The Swift string of a jv string; does not consume `value`.
    static func swiftString(_ value: jv) -> String {
        let length = Int(jv_string_length_bytes(jv_copy(value)))  // consumes its argument
        guard length > 0, let chars = jv_string_value(value) else { return "" }
        // jv_string_value's pointer lives as long as `value`, which the caller still holds.
        let bytes = UnsafeRawPointer(chars).assumingMemoryBound(to: UInt8.self)
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }
}
