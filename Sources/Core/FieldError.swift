/// One problem with one field of a JSON document: what is wrong (``code``, stable, for
/// programs) and where (``path``, a JSON pointer from the document's root such as
/// `/payload/kg`), and, for a person, ``problem``.
///
/// ``FieldReader`` finds them; each boundary renders them its own way: the API as a `422` that
/// lists every one, the ingest path as a rejection, a rule's effect as a decoding error, a rule
/// file as a diagnostic at its line and column.
public struct FieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the field.
    public enum Code: String, Sendable, Equatable {
        /// Required and absent (or null).
        case missing
        /// Present with the wrong JSON type.
        case wrongType = "wrong_type"
        /// Not a field of the object.
        case unknown
        /// Text longer than allowed.
        case tooLong = "too_long"
        /// A number outside its range.
        case outOfRange = "out_of_range"
        /// Of the right type, but not a value the field takes.
        case invalid
    }

    public var code: Code
    /// Where: a JSON pointer (RFC 6901) from the document's root; `""` is the root itself.
    public var path: String
    /// What is wrong, for a person, to follow the field's name: `must be a number, got string`.
    public var problem: String
    /// For an ``Code/unknown`` field, the fields the object has (in the order they were read).
    public var known: [String]

    public init(_ code: Code, at path: String, _ problem: String, known: [String] = []) {
        self.code = code
        self.path = path
        self.problem = problem
        self.known = known
    }

    /// The field's name as people read it: the path's members joined with dots, array indices
    /// in brackets (`payload.kg`, `ids[2]`); `.` for the root.
    public var field: String { JSONPointer.readable(path) }

    /// `` `payload.kg` must be a number, got string ``.
    public var description: String { "`\(field)` \(problem)" }

    /// The same problem at the place `path` has in another document: `prefix` (a pointer this
    /// error's path starts with) replaced by `replacement`; nil when the path is not under
    /// `prefix`. A route that built an event's payload from its body maps `/payload/name` to
    /// the body's `/name`.
    public func moved(from prefix: String, to replacement: String) -> FieldError? {
        guard path == prefix || path.hasPrefix(prefix + "/") else { return nil }
        var moved = self
        moved.path = replacement + path.dropFirst(prefix.count)
        return moved
    }
}

/// JSON pointers (RFC 6901): `/payload/kg`, with `~` written `~0` and `/` written `~1`.
public enum JSONPointer {
    /// `path` with the member (or index) `token` appended.
    public static func appending(_ token: String, to path: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return path + "/" + token
        }
        return path + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// The tokens of `path`, unescaped (`""` has none).
    public static func tokens(_ path: String) -> [String] {
        guard !path.isEmpty else { return [] }
        return path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            String($0).replacing("~1", with: "/").replacing("~0", with: "~")
        }
    }

    /// The pointer as people read it: `payload.kg`, `ids[2]`, `.` for the root.
    public static func readable(_ path: String) -> String {
        var text = ""
        for token in tokens(path) {
            if !token.isEmpty, token.allSatisfy(\.isASCIIDigit) {
                text += "[\(token)]"
            } else {
                text += text.isEmpty ? token : "." + token
            }
        }
        return text.isEmpty ? "." : text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
