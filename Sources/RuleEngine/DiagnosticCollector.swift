import Core
import YAML

/// Collects diagnostics during one load, dropping exact repeats (a library error is reported
/// once even when several rules import the library).
final class DiagnosticCollector {
    private(set) var diagnostics: [Diagnostic] = []
    private var seen: Set<String> = []
    /// Places whose first diagnostic says it all: what a decoder finds there later follows from it
    /// (a field written with an undeclared parameter is then not a duration either).
    private var explained: Set<SourceLocation> = []

    var hasErrors: Bool { diagnostics.hasErrors }

    func add(_ diagnostic: Diagnostic) {
        let key = "\(diagnostic.location)|\(diagnostic.code)|\(diagnostic.message)"
        guard !explained.contains(diagnostic.location), seen.insert(key).inserted else { return }
        diagnostics.append(diagnostic)
    }

    /// Adds `diagnostic` and drops every later one at its place.
    func addExplaining(_ diagnostic: Diagnostic) {
        add(diagnostic)
        explained.insert(diagnostic.location)
    }

    func error(
        _ code: String, _ message: String, at location: SourceLocation, rule: String? = nil,
        notes: [Diagnostic.Note] = []
    ) {
        add(Diagnostic(.error, code: code, message, at: location, rule: rule, notes: notes))
    }

    func warning(_ code: String, _ message: String, at location: SourceLocation, rule: String? = nil) {
        add(Diagnostic(.warning, code: code, message, at: location, rule: rule))
    }

    /// A field's problem as a rule file's error at `location`: its code as diagnostics name it
    /// (`missing_field`, `invalid_type`, `unknown_field`, else `invalid_value`), its message
    /// `message` or the field's own (`` `budget` must be a duration ``).
    func error(_ field: FieldError, _ message: String? = nil, at location: SourceLocation) {
        error(Self.code(of: field.code), message ?? field.description, at: location)
    }

    /// The diagnostic code of a field's problem.
    static func code(of code: FieldError.Code) -> String {
        switch code {
        case .missing: "missing_field"
        case .wrongType: "invalid_type"
        case .unknown: "unknown_field"
        case .tooLong, .outOfRange, .invalid: "invalid_value"
        }
    }
}

extension SourceLocation {
    init(file: String, _ mark: YAMLMark) {
        self.init(file: file, line: mark.line, column: mark.column)
    }
}

/// The closest of `candidates` to `word` (edit distance ≤ 2), for "did you mean" hints.
public func closestMatch(to word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
    let w = Array(word.lowercased())
    let scored = candidates.map { ($0, distance(w, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < w.count else { return nil }
    return best.0
}

/// "`a`, `b` or `c`"
func listing(_ names: [String], conjunction: String = "or") -> String {
    let quoted = names.map { "`\($0)`" }
    guard quoted.count > 1, let last = quoted.last else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + last
}
