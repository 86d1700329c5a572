/// Reads the fields of a JSON object strictly, the one way every boundary does: a request's
/// body, an event's payload, an effect a rule produced. Each accessor checks the field's type
/// (and length, range, id rule) and remembers that it was read; ``finish()`` then refuses the
/// fields nobody read (a typo must not pass silently).
///
/// Every problem is a ``FieldError`` naming the field by its JSON pointer. It is thrown, and
/// also kept in ``errors``: a reader that stops at the first problem uses `try`; one that
/// answers with every problem at once (the API's `422`) reads with `try?` and then asks for
/// ``problems(allowingUnknown:)``.
///
/// ```swift
/// var fields = FieldReader(payload, at: "/payload")
/// let kg = try fields.number("kg")
/// let note = try fields.optionalString("note", maxLength: 200)
/// try fields.finish()
/// ```
public struct FieldReader {
    /// The object read.
    public let object: JSONObject
    /// Where the object is in its document (a JSON pointer; `""` for the root).
    public let path: String
    /// The longest text a string field takes unless the read says otherwise (nil: no limit).
    public var maximumLength: Int?
    /// The problems found so far, in the order of the reads.
    public private(set) var errors: [FieldError] = []
    /// Names read so far (a handful: a list beats hashing).
    private var read: [String] = []

    /// A reader of `object`, found at `path` in its document.
    public init(_ object: JSONObject, at path: String = "", maximumLength: Int? = nil) {
        self.object = object
        self.path = path
        self.maximumLength = maximumLength
    }

    /// The pointer of the field `key` of this object.
    public func path(of key: String) -> String { JSONPointer.appending(key, to: path) }

    /// Whether `key` is present at all (null included): "set it to nothing" differs from
    /// "leave it". Does not count as a read.
    public func has(_ key: String) -> Bool { object[key] != nil }

    /// Marks `key` as read; its value, nil when absent or null.
    public mutating func value(_ key: String) -> JSON? {
        if !read.contains(key) { read.append(key) }
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    /// Marks `key` as read; its value as given (null included), nil when absent.
    public mutating func member(_ key: String) -> JSON? {
        if !read.contains(key) { read.append(key) }
        return object[key]
    }

    /// Keeps a problem of the field `key` (nil: of the object itself) and returns it to throw.
    @discardableResult
    public mutating func fail(_ key: String?, _ code: FieldError.Code, _ problem: String) -> FieldError {
        keep(FieldError(code, at: key.map(path(of:)) ?? path, problem))
    }

    /// Keeps a problem of `token` (an index or a member) inside the field `key`: `/ids/2`.
    @discardableResult
    public mutating func fail(_ key: String, at token: String, _ code: FieldError.Code, _ problem: String)
        -> FieldError
    {
        keep(FieldError(code, at: JSONPointer.appending(token, to: path(of: key)), problem))
    }

    private mutating func keep(_ error: FieldError) -> FieldError {
        errors.append(error)
        return error
    }

    /// Refuses `old`, a field's former name, telling the sender to send `new` instead (`invalid`,
    /// at `old`): a renamed field is never read silently nor dropped as merely unknown.
    public mutating func renamed(_ old: String, to new: String) {
        guard has(old) else { return }
        if !read.contains(old) { read.append(old) }
        fail(old, .invalid, "was renamed: send `\(new)` instead")
    }

    // MARK: Typed reads

    /// A non-empty string of at most `maxLength` characters (default ``maximumLength``).
    public mutating func string(_ key: String, maxLength: Int? = nil) throws(FieldError) -> String {
        guard let text = try optionalString(key, maxLength: maxLength) else {
            throw fail(key, .missing, "is required (a string)")
        }
        return text
    }

    /// As ``string(_:maxLength:)``, nil when absent or null.
    public mutating func optionalString(_ key: String, maxLength: Int? = nil) throws(FieldError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        guard !text.isEmpty else { throw fail(key, .invalid, "must not be empty") }
        if let limit = maxLength ?? maximumLength, text.count > limit {
            throw fail(key, .tooLong, "must be at most \(limit) characters")
        }
        return text
    }

    /// A string that is an id by the one rule (``Identifier``).
    public mutating func identifier(_ key: String) throws(FieldError) -> String {
        guard let text = try optionalIdentifier(key) else { throw fail(key, .missing, "is required (a string)") }
        return text
    }

    /// As ``identifier(_:)``, nil when absent or null.
    public mutating func optionalIdentifier(_ key: String) throws(FieldError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        switch Identifier.problem(text) {
        case nil: return text
        case .length(let count)? where count > Identifier.maximumBytes:
            throw fail(key, .tooLong, Identifier.Problem.length(count).requirement)
        case let problem?: throw fail(key, .invalid, problem.requirement)
        }
    }

    /// A finite number.
    public mutating func number(_ key: String) throws(FieldError) -> Double {
        guard let number = try optionalNumber(key) else { throw fail(key, .missing, "is required (a number)") }
        return number
    }

    /// As ``number(_:)``, nil when absent or null.
    public mutating func optionalNumber(_ key: String) throws(FieldError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value else { throw wrongType(key, "a number", value) }
        guard number.isFinite else { throw fail(key, .invalid, "must be a finite number") }
        return number
    }

    /// A whole number within `range`, nil when absent or null.
    public mutating func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(FieldError) -> Int? {
        guard let number = try optionalNumber(key) else { return nil }
        guard number == number.rounded(), number >= Double(range.lowerBound), number <= Double(range.upperBound)
        else {
            throw fail(key, .outOfRange, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// `true` or `false`, nil when absent or null.
    public mutating func optionalBool(_ key: String) throws(FieldError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, "true or false", value) }
        return flag
    }

    /// An object.
    public mutating func object(_ key: String) throws(FieldError) -> JSONObject {
        guard let object = try optionalObject(key) else { throw fail(key, .missing, "is required (an object)") }
        return object
    }

    /// As ``object(_:)``, nil when absent or null.
    public mutating func optionalObject(_ key: String) throws(FieldError) -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard case .object(let object) = value else { throw wrongType(key, "an object", value) }
        return object
    }

    /// An array.
    public mutating func array(_ key: String) throws(FieldError) -> [JSON] {
        guard let items = try optionalArray(key) else { throw fail(key, .missing, "is required (an array)") }
        return items
    }

    /// As ``array(_:)``, nil when absent or null.
    public mutating func optionalArray(_ key: String) throws(FieldError) -> [JSON]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw wrongType(key, "an array", value) }
        return items
    }

    /// An array of strings, nil when absent or null.
    public mutating func optionalStrings(_ key: String) throws(FieldError) -> [String]? {
        guard let items = try optionalArray(key) else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw fail(key, at: String(index), .wrongType, "must be a string, got \(item.typeName)")
            }
            strings.append(text)
        }
        return strings
    }

    private mutating func wrongType(_ key: String, _ expected: String, _ value: JSON) -> FieldError {
        fail(key, .wrongType, "must be \(expected), got \(value.typeName)")
    }

    // MARK: The end

    /// The fields present that nobody read, one problem each, in the object's order.
    public func unknownFields() -> [FieldError] {
        var unknown: [FieldError] = []
        for key in object.keys where !read.contains(key) {
            let listed = read.map { "`\($0)`" }.joined(separator: ", ")
            unknown.append(
                FieldError(.unknown, at: path(of: key), "is not a known field (known: \(listed))", known: read))
        }
        return unknown
    }

    /// Every problem: those kept, then each field nobody read (unless `allowingUnknown`).
    public func problems(allowingUnknown: Bool = false) -> [FieldError] {
        allowingUnknown ? errors : errors + unknownFields()
    }

    /// Throws the first problem: one kept, else a field nobody read.
    public func finish() throws(FieldError) {
        if let first = errors.first ?? unknownFields().first { throw first }
    }
}
