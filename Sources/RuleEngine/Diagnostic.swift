/// A place in a file: display path, 1-based line and column.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// `path:line:column`
    public var description: String { "\(file):\(line):\(column)" }
}

/// A problem found while loading rules, in the shape compilers use:
/// `path:line:col: error: message [code]`.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Comparable {
        case error, warning, note

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            let order: [Severity] = [.error, .warning, .note]
            return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
        }
    }

    /// A related place, such as the first definition of a duplicated id.
    public struct Note: Sendable, Equatable {
        public var message: String
        public var location: SourceLocation

        public init(_ message: String, at location: SourceLocation) {
            self.message = message
            self.location = location
        }
    }

    public var severity: Severity
    /// Stable snake_case code, e.g. `unknown_field`, `jq_compile`, `duplicate_rule`.
    public var code: String
    public var message: String
    public var location: SourceLocation
    /// The rule the problem belongs to, when known.
    public var rule: String?
    public var notes: [Note]

    public init(
        _ severity: Severity = .error, code: String, _ message: String, at location: SourceLocation,
        rule: String? = nil, notes: [Note] = []
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.rule = rule
        self.notes = notes
    }

    /// `path:line:col: error: message [code]`, then one line per note.
    public var description: String {
        var text = "\(location): \(severity.rawValue): \(message) [\(code)]"
        for note in notes { text += "\n\(note.location): note: \(note.message)" }
        return text
    }
}

extension [Diagnostic] {
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }

    /// Sorted by file, line and column, errors first at the same place.
    public func sortedByLocation() -> [Diagnostic] {
        sorted { ($0.location, $0.severity) < ($1.location, $1.severity) }
    }
}
