import Core

/// An effect object a rule produced that the engine cannot use.
public struct EffectDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The field of the effect at fault, when one is (its path in the effect object).
    public var field: FieldError?

    public init(_ message: String) { self.message = message }

    /// A field of a `type` effect that is not right: ``unknown field `colour` in a record_added
    /// effect``, ``record_added effect field `kind` must be a string, got number``.
    public init(_ error: FieldError, effect type: String) {
        switch error.code {
        case .unknown: message = "unknown field `\(error.field)` in a \(type) effect"
        case .missing: message = "\(type) needs `\(error.field)`" + Self.reason(error.problem)
        case _ where error.path.isEmpty: message = "\(type) effect \(error.problem)"
        default: message = "\(type) effect field `\(error.field)` \(error.problem)"
        }
        field = error
    }

    public var description: String { message }

    /// ` (the event has none)` of a problem `is required (the event has none)`.
    static func reason(_ problem: String) -> String {
        let prefix = "is required "
        return problem.hasPrefix(prefix) ? " " + problem.dropFirst(prefix.count) : ""
    }
}
