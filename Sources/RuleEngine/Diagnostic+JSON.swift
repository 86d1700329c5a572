import Core
import JQ

extension Diagnostic {
    /// The diagnostic as JSON: severity, code, message, file, line, column, rule, notes.
    public var json: JSON {
        var object: JSONObject = [
            "severity": .string(severity.rawValue), "code": .string(code), "message": .string(message),
            "file": .string(location.file), "line": .number(Double(location.line)),
            "column": .number(Double(location.column)),
        ]
        object["rule"] = rule.map(JSON.string) ?? .null
        object["notes"] = .array(
            notes.map { note in
                [
                    "message": .string(note.message), "file": .string(note.location.file),
                    "line": .number(Double(note.location.line)), "column": .number(Double(note.location.column)),
                ]
            })
        return .object(object)
    }
}

extension TestOutcome {
    /// The outcome as JSON: rule, test, status, place, duration, and what was expected and got.
    public var json: JSON {
        var object: JSONObject = [
            "rule": .string(rule), "test": .string(test), "status": .string(status.rawValue),
            "file": .string(location.file), "line": .number(Double(location.line)),
            "column": .number(Double(location.column)),
            "duration_ms": .number(Double(Self.milliseconds(duration)) ?? 0),
        ]
        if let message { object["message"] = .string(message) }
        if let expected { object["expected"] = expected }
        if let actual { object["actual"] = actual }
        if !trace.isEmpty {
            object["trace"] = .array(trace.map { ["kind": .string($0.kind.rawValue), "value": $0.value] })
        }
        return .object(object)
    }

    /// Milliseconds with three decimals, e.g. `0.042`.
    public static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let whole = microseconds / 1000
        let fraction = String(microseconds % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
