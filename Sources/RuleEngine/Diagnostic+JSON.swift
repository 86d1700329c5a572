import Core
import JQ

extension Diagnostic {
    /// The diagnostic as JSON: severity, code, message, file, line, column, rule, `related_notes`
    /// (other places the message points to; a dog's `notes` are something else).
    public var json: JSON {
        var object: JSONObject = [
            "severity": .string(severity.rawValue), "code": .string(code), "message": .string(message),
            "file": .string(location.file), "line": .number(Double(location.line)),
            "column": .number(Double(location.column)),
        ]
        object["rule"] = rule.map(JSON.string) ?? .null
        object["related_notes"] = .array(
            notes.map { note in
                [
                    "message": .string(note.message), "file": .string(note.location.file),
                    "line": .number(Double(note.location.line)), "column": .number(Double(note.location.column)),
                ]
            })
        return .object(object)
    }

    /// A diagnostic read back from ``json`` (another process's); nil when `json` is not one.
    public init?(json: JSON) {
        guard let severity = json["severity"]?.stringValue.flatMap(Severity.init(rawValue:)),
            let code = json["code"]?.stringValue, let message = json["message"]?.stringValue,
            let location = SourceLocation(json: json)
        else { return nil }
        let notes: [Note] = (json["related_notes"]?.arrayValue ?? json["notes"]?.arrayValue ?? []).compactMap { note in
            guard let message = note["message"]?.stringValue, let location = SourceLocation(json: note) else {
                return nil
            }
            return Note(message, at: location)
        }
        self.init(severity, code: code, message, at: location, rule: json["rule"]?.stringValue, notes: notes)
    }
}

extension SourceLocation {
    /// The place `json`'s `file`, `line` and `column` name.
    init?(json: JSON) {
        guard let file = json["file"]?.stringValue, let line = json["line"]?.numberValue,
            let column = json["column"]?.numberValue
        else { return nil }
        self.init(file: file, line: Int(line), column: Int(column))
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

    /// An outcome read back from ``json`` (another process's); nil when `json` is not one.
    public init?(json: JSON) {
        guard let rule = json["rule"]?.stringValue, let test = json["test"]?.stringValue,
            let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)),
            let location = SourceLocation(json: json)
        else { return nil }
        let trace: [TraceEntry] = (json["trace"]?.arrayValue ?? []).compactMap { entry in
            guard let kind = entry["kind"]?.stringValue.flatMap(TraceEntry.Kind.init(rawValue:)),
                let value = entry["value"]
            else { return nil }
            return TraceEntry(kind: kind, value: value)
        }
        self.init(
            rule: rule, test: test, location: location, status: status, message: json["message"]?.stringValue,
            expected: json["expected"], actual: json["actual"],
            duration: .microseconds(Int64(((json["duration_ms"]?.numberValue ?? 0) * 1000).rounded())), trace: trace)
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
