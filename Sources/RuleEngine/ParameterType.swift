import Core
import YAML

/// The type of a rule parameter (`params:`): what a product manager may write as its value,
/// and what a rule reads as `$params.NAME`.
///
/// | type | written | jq reads |
/// |---|---|---|
/// | `integer` | `7` | the number |
/// | `number` | `2.5` (with a `unit`, such as `km`) | the number |
/// | `duration` | `30d`, `2h`, `1h30m` | seconds |
/// | `percent` | `25` or `25%` (0 to 100) | the fraction, 0.25 |
/// | `boolean` | `true`, `false` | the boolean |
/// | `enum` | one of its `values` | the text |
/// | `block_id`, `branch_id` | a block or branch of a catalog | the text |
/// | `text` | a key of the texts (`reminder.weigh_again`) | the text |
/// | `date` | `2026-12-15`, or a date-time with its offset | the text |
/// | `time` | a time of day, `19:00` | the text |
public enum ParameterType: Sendable, Equatable {
    case integer, number, duration, percent, boolean
    /// `enum`: one of these values.
    case choice([String])
    case blockID, branchID, text, date, time

    /// Every type's name, as declarations write it.
    public static let names = [
        "integer", "number", "duration", "percent", "boolean", "enum", "block_id", "branch_id", "text", "date", "time",
    ]

    /// The type named `name`; an `enum` with no values yet.
    public init?(name: String) {
        switch name {
        case "integer": self = .integer
        case "number": self = .number
        case "duration": self = .duration
        case "percent": self = .percent
        case "boolean": self = .boolean
        case "enum": self = .choice([])
        case "block_id": self = .blockID
        case "branch_id": self = .branchID
        case "text": self = .text
        case "date": self = .date
        case "time": self = .time
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .integer: "integer"
        case .number: "number"
        case .duration: "duration"
        case .percent: "percent"
        case .boolean: "boolean"
        case .choice: "enum"
        case .blockID: "block_id"
        case .branchID: "branch_id"
        case .text: "text"
        case .date: "date"
        case .time: "time"
        }
    }

    /// Whether values are ordered, so that a declaration may give `min` and `max`.
    public var isOrdered: Bool {
        switch self {
        case .integer, .number, .duration, .percent, .date, .time: true
        default: false
        }
    }

    /// What a value of this type looks like, for messages: "a whole number such as 7".
    public var example: String {
        switch self {
        case .integer: "a whole number such as 7"
        case .number: "a number such as 2.5"
        case .duration: "a duration such as 30d, 12h or 1h30m"
        case .percent: "a percent from 0 to 100, such as 25 or 25%"
        case .boolean: "true or false"
        case .choice(let values): "one of " + values.map { "`\($0)`" }.joined(separator: ", ")
        case .blockID: "a block id such as weight-baseline"
        case .branchID: "a branch id such as health"
        case .text: "a text key such as reminder.weigh_again"
        case .date: "a date such as 2026-12-15, or a date-time with its offset such as 2026-12-15T23:59:59+01:00"
        case .time: "a time of day such as 19:00"
        }
    }

    /// Reads `json` (a YAML value as JSON, or an API request's) as a value of this type.
    public func value(from json: JSON) -> Result<ParameterValue, ParameterProblem> {
        func wrongType() -> Result<ParameterValue, ParameterProblem> {
            .failure(ParameterProblem(.wrongType, "must be \(example), found \(Self.describe(json))"))
        }
        switch (self, json) {
        case (.integer, .number(let n)):
            guard n.isFinite, n == n.rounded(), abs(n) <= 9_007_199_254_740_991 else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: n))
        case (.number, .number(let n)):
            guard n.isFinite else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: n))
        case (.duration, .string(let text)):
            guard let duration = DurationText.parse(text) else { return wrongType() }
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return .success(
                ParameterValue(json: .string(DurationText.format(duration)), jq: .number(seconds), order: seconds))
        case (.percent, .number(let n)):
            return percent(n)
        case (.percent, .string(let text)) where text.hasSuffix("%"):
            guard let n = Double(text.dropLast().trimmingSpaces) else { return wrongType() }
            return percent(n)
        case (.boolean, .bool):
            return .success(ParameterValue(json: json, jq: json, order: nil))
        case (.choice(let values), .string(let text)):
            guard values.contains(text) else {
                var message = "must be one of \(listing(values)), found `\(text)`"
                if let suggestion = closestMatch(to: text, in: values) { message += "; did you mean `\(suggestion)`?" }
                return .failure(ParameterProblem(.unknownEnumValue, message))
            }
            return .success(ParameterValue(json: json, jq: json, order: nil))
        case (.blockID, .string(let text)), (.branchID, .string(let text)):
            guard Identifier.isValid(text) else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: nil))
        case (.text, .string(let text)):
            guard Self.isTextKey(text) else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: nil))
        case (.date, .string(let text)):
            guard let seconds = Self.dateSeconds(text) else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: seconds))
        case (.time, .string(let text)):
            guard let minutes = Self.minutes(text) else { return wrongType() }
            return .success(ParameterValue(json: json, jq: json, order: Double(minutes)))
        default:
            return wrongType()
        }
    }

    private func percent(_ n: Double) -> Result<ParameterValue, ParameterProblem> {
        guard n.isFinite, (0...100).contains(n) else {
            return .failure(ParameterProblem(.outOfRange, "must be a percent from 0 to 100, found \(numberText(n))"))
        }
        return .success(ParameterValue(json: .number(n), jq: .number(n / 100), order: n))
    }

    /// Text keys: a lowercase letter, then lowercase letters, digits, `_`, `.` and `-`.
    static func isTextKey(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.utf8.count <= 128 else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)
        }
    }

    /// Seconds since 1970 of `2026-12-15` (its start, UTC) or of a date-time with an offset.
    static func dateSeconds(_ text: String) -> Double? {
        if text.utf8.count == 10 {
            var copy = text
            return copy.withUTF8 { Timestamp.days(ofDate: $0) }.map { Double($0) * 86_400 }
        }
        return Timestamp.parse(text)
    }

    /// Whether a date value is written with its time (`2026-12-15T23:59:59+01:00`).
    static func hasTime(_ text: String) -> Bool { text.utf8.count > 10 }

    /// Minutes since midnight of `HH:MM`.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hours = Int(parts[0]),
            let minutes = Int(parts[1]), (0...23).contains(hours), (0...59).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    /// `the number 7`, `` `ten` ``, `true`, `a list`.
    static func describe(_ json: JSON) -> String {
        switch json {
        case .null: "nothing (null)"
        case .bool(let b): "\(b)"
        case .number(let n): "the number \(numberText(n))"
        case .string(let s): "`\(s.prefix(80))`"
        case .array: "a list"
        case .object: "a mapping"
        }
    }
}

/// A value of a parameter: as people write it and as rules read it.
public struct ParameterValue: Sendable, Equatable {
    /// As people write it and the API answers it: `7`, `"30d"`, `25` (a percent), `"19:00"`.
    public var json: JSON
    /// What jq reads as `$params.NAME`: a duration in seconds, a percent as a fraction; else ``json``.
    public var jq: JSON
    /// Where the value sits among others of its type, for `min` and `max`; nil when unordered.
    var order: Double?

    /// The YAML scalar that stands for the value where a field is written `$params.NAME`: a
    /// duration, date or time as written (`30d`, as fields read them), a percent as its fraction.
    var yamlScalar: YAMLScalar {
        switch json {
        case .string(let text): YAMLScalar(text, style: .doubleQuoted)
        case .bool(let b): YAMLScalar(b ? "true" : "false")
        default: YAMLScalar(jq.compactText)
        }
    }

    /// The value for people: `30d`, `25%`, `7 km` without the unit, `"health"` as `health`.
    public var text: String {
        json.stringValue ?? json.compactText
    }
}

/// Why a value does not fit its parameter: a stable code and a message without a place.
public struct ParameterProblem: Error, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// Not a value of the type (`ten` for an integer).
        case wrongType = "invalid_param_type"
        /// Outside `min`/`max` (or a percent outside 0 to 100).
        case outOfRange = "param_out_of_range"
        /// An `enum` value that is not one of its values.
        case unknownEnumValue = "unknown_enum_value"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// `7`, `2.5`: whole numbers without a fraction.
func numberText(_ n: Double) -> String {
    n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.last == " " { text.removeLast() }
        while text.first == " " { text.removeFirst() }
        return text
    }
}
