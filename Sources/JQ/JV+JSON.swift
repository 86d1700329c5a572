import CJQ
import Core

extension JV {
    /// The deepest nesting converted from libjq values to ``JSON`` (deeper values are an error,
    /// so a rule cannot exhaust the stack of the thread that reads its output).
    public static let maximumDepth = 1_000

    /// Builds the libjq value of `json` directly, without JSON text in between.
    public convenience init(_ json: JSON) {
        self.init(consuming: JV.make(json))
    }

    /// An object of `members`, sharing (not copying) each member's value.
    public static func object(_ members: [(String, JV)]) -> JV {
        var object = jv_object()
        // jv_object_set consumes the object, the key and the value: give it new references.
        for (key, value) in members { object = jv_object_set(object, makeString(key), value.retained()) }
        return JV(consuming: object)
    }

    /// Converts the value to ``JSON``.
    /// - Throws: ``JQError`` `too_deep` when nested deeper than ``maximumDepth``.
    public func json() throws(JQError) -> JSON {
        try JV.json(from: raw, depth: 0)
    }

    static func make(_ json: JSON) -> jv {
        switch json {
        case .null: return jv_null()
        case .bool(let b): return b ? jv_true() : jv_false()
        case .number(let n): return jv_number(n)
        case .string(let s): return makeString(s)
        case .array(let elements):
            var array = jv_array_sized(Int32(elements.count))
            // jv_array_append consumes the array and the element and returns the new array.
            for element in elements { array = jv_array_append(array, make(element)) }
            return array
        case .object(let members):
            var object = jv_object()
            // jv_object_set consumes the object, the key and the value.
            for (key, value) in members { object = jv_object_set(object, makeString(key), make(value)) }
            return object
        }
    }

    /// Reads `value` without consuming it.
    static func json(from value: jv, depth: Int) throws(JQError) -> JSON {
        switch jv_get_kind(value) {
        case JV_KIND_NULL: return .null
        case JV_KIND_TRUE: return .bool(true)
        case JV_KIND_FALSE: return .bool(false)
        case JV_KIND_NUMBER: return .number(jv_number_value(value))
        case JV_KIND_STRING: return .string(swiftString(value))
        case JV_KIND_ARRAY:
            guard depth < maximumDepth else { throw tooDeep() }
            let length = jv_array_length(jv_copy(value))  // consumes its argument
            var elements: [JSON] = []
            elements.reserveCapacity(Int(length))
            for i in 0..<length {
                let element = jv_array_get(jv_copy(value), i)  // consumes the array, returns +1
                defer { jv_free(element) }
                elements.append(try json(from: element, depth: depth + 1))
            }
            return .array(elements)
        case JV_KIND_OBJECT:
            guard depth < maximumDepth else { throw tooDeep() }
            var object = JSONObject()
            // Counting the members would walk every slot once more (jv_object_length); rule
            // outputs are small objects, so room for 8 members is one allocation for most.
            object.reserveCapacity(8)
            // The object iterators borrow the object; keys and values come back at +1.
            var iterator = jv_object_iter(value)
            while jv_object_iter_valid(value, iterator) != 0 {
                let key = jv_object_iter_key(value, iterator)
                let member = jv_object_iter_value(value, iterator)
                defer {
                    jv_free(key)
                    jv_free(member)
                }
                // jq object keys are unique: no need to look for an existing one.
                object.appendUnique(swiftString(key), try json(from: member, depth: depth + 1))
                iterator = jv_object_iter_next(value, iterator)
            }
            return .object(object)
        default:
            throw JQError(.runtimeError, "libjq returned an invalid value where a value was expected")
        }
    }

    private static func tooDeep() -> JQError {
        JQError(.tooDeep, "value is nested deeper than \(maximumDepth) levels")
    }
}
