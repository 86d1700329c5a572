import CJQ
import Core

/// Builds a libjq object member by member straight from column values and stored JSON text,
/// with no ``JSON`` tree in between: a rule's input read from rows costs the libjq values it
/// is made of.
///
/// Keys are ``JV`` strings made once per input (``JV/init(string:)``) and shared by every row.
public struct JVObjectBuilder: ~Copyable {
    private var raw: jv

    public init() {
        raw = jv_object()
    }

    deinit {
        jv_free(raw)
    }

    /// Sets `key` to `value` (shared, not copied).
    public mutating func set(_ key: JV, _ value: JV) {
        // jv_object_set consumes the object, the key and the value.
        raw = jv_object_set(raw, key.retained(), value.retained())
    }

    /// Sets `key` to a string, or to null for nil.
    public mutating func set(_ key: JV, string: String?) {
        raw = jv_object_set(raw, key.retained(), string.map(JV.makeString) ?? jv_null())
    }

    /// Sets `key` to the string of UTF-8 `bytes` (libjq replaces invalid sequences, as for any
    /// string), or to null for nil.
    public mutating func set(_ key: JV, utf8 bytes: UnsafeBufferPointer<UInt8>?) {
        raw = jv_object_set(raw, key.retained(), bytes.map(JV.makeString(utf8:)) ?? jv_null())
    }

    /// Sets `key` to a number.
    public mutating func set(_ key: JV, number: Double) {
        raw = jv_object_set(raw, key.retained(), jv_number(number))
    }

    /// Sets `key` to the value of JSON text the engine stored, as its UTF-8 bytes (null for
    /// nil; a row's column read without making a `String`). Text libjq's parser refuses (nested
    /// deeper than its 256 levels) is read by ``JSONParser`` instead, so the value is the same
    /// either way.
    public mutating func set(_ key: JV, storedJSON bytes: UnsafeBufferPointer<UInt8>?) throws {
        raw = jv_object_set(raw, key.retained(), try JV.parseStored(bytes))
    }

    /// Sets the member named `key` to a string, or to null for nil.
    public mutating func set(_ key: String, string: String?) {
        raw = jv_object_set(raw, JV.makeString(key), string.map(JV.makeString) ?? jv_null())
    }

    /// Sets the member named `key` to the libjq value of `json`.
    public mutating func set(_ key: String, json: JSON) {
        raw = jv_object_set(raw, JV.makeString(key), JV.make(json))
    }

    /// Sets `key` to the array `elements` built.
    public mutating func set(_ key: JV, array elements: consuming JVArrayBuilder) {
        raw = jv_object_set(raw, key.retained(), elements.take())
    }

    /// The object built.
    public consuming func build() -> JV {
        JV(consuming: take())
    }

    /// The object, handed over (+1) without the copy and free a ``build()`` would cost.
    consuming func take() -> jv {
        let value = raw
        discard self
        return value
    }
}

/// Builds a libjq array element by element, with no ``JSON`` tree or ``JV`` wrapper per
/// element in between (facts of thousands of small values).
public struct JVArrayBuilder: ~Copyable {
    private var raw: jv

    public init() {
        raw = jv_array()
    }

    /// An array with room for `capacity` elements (libjq's default is 16).
    public init(capacity: Int) {
        raw = jv_array_sized(Int32(clamping: max(capacity, 0)))
    }

    deinit {
        jv_free(raw)
    }

    /// Appends `value` (shared, not copied).
    public mutating func append(_ value: JV) {
        raw = jv_array_append(raw, value.retained())  // consumes the array and the value
    }

    /// Appends a number.
    public mutating func append(number: Double) {
        raw = jv_array_append(raw, jv_number(number))
    }

    /// Appends a string.
    public mutating func append(string: String) {
        raw = jv_array_append(raw, JV.makeString(string))
    }

    /// Appends the object `element` built.
    public mutating func append(object element: consuming JVObjectBuilder) {
        raw = jv_array_append(raw, element.take())
    }

    /// Appends the array `element` built.
    public mutating func append(array element: consuming JVArrayBuilder) {
        raw = jv_array_append(raw, element.take())
    }

    /// The array built.
    public consuming func build() -> JV {
        JV(consuming: take())
    }

    consuming func take() -> jv {
        let value = raw
        discard self
        return value
    }
}

extension JV {
    /// A libjq string.
    public convenience init(string: String) {
        self.init(consuming: JV.makeString(string))
    }

    /// An array of `elements` (shared, not copied).
    public convenience init(array elements: [JV]) {
        var array = jv_array_sized(Int32(elements.count))
        // jv_array_append consumes the array and the element.
        for element in elements { array = jv_array_append(array, element.retained()) }
        self.init(consuming: array)
    }

    /// The +1 value of stored JSON text's UTF-8 bytes (null for nil), by libjq's parser, else
    /// ``JSONParser``.
    static func parseStored(_ bytes: UnsafeBufferPointer<UInt8>?) throws -> jv {
        guard let bytes else { return jv_null() }
        if let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(Int32.max) {
            let parsed = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                jv_parse_sized($0, Int32(bytes.count))
            }
            if jv_get_kind(parsed) != JV_KIND_INVALID { return parsed }
            jv_free(parsed)
        }
        return make(try JSONParser().parse(String(decoding: bytes, as: UTF8.self)))
    }
}
