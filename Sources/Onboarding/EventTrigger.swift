import Core
import Foundation

/// What completes a step as data the app can evaluate itself: the screen event's type and
/// conditions on members of its payload. Written in a flow as
/// `{event: ui_text_changed, where: {element_id: name_field, text: {matches: "\\S"}}}` and
/// served with every step (`tap`, `swipe` and `visible` are shorthands of it); the engine
/// decides with the jq it compiles to.
public struct EventTrigger: Sendable, Equatable {
    /// A condition on one member of the event's payload.
    public enum Condition: Sendable, Equatable {
        /// The member is this value.
        case equals(JSON)
        /// The member, as text, starts with this.
        case prefix(String)
        /// The member, as text, contains a match of this regular expression (jq's `test`).
        case matches(String)

        /// The condition's names in a flow file and in the API.
        public static let names = ["equals", "prefix", "matches"]

        var json: JSON {
            switch self {
            case .equals(let value): ["equals": value]
            case .prefix(let text): ["prefix": .string(text)]
            case .matches(let pattern): ["matches": .string(pattern)]
            }
        }

        /// The jq test of `member` (a jq path such as `.event.payload["text"]`).
        func jq(_ member: String) -> String {
            func quoted(_ text: String) -> String { JSON.string(text).compactText }
            switch self {
            case .equals(let value): return "\(member) == \(value.compactText)"
            case .prefix(let text): return "((\(member) // \"\") | tostring | startswith(\(quoted(text))))"
            case .matches(let pattern): return "((\(member) // \"\") | tostring | test(\(quoted(pattern))))"
            }
        }
    }

    /// A condition on the payload member `member`.
    public struct Member: Sendable, Equatable {
        public var member: String
        public var condition: Condition

        public init(_ member: String, _ condition: Condition) {
            self.member = member
            self.condition = condition
        }
    }

    /// The event's type (`ui_tap`, `ui_text_changed`…).
    public var type: String
    /// Every condition must hold, in the order written.
    public var conditions: [Member]

    public init(type: String, conditions: [Member] = []) {
        self.type = type
        self.conditions = conditions
    }

    /// `{type, where: {member: {equals|prefix|matches: value}}}`.
    public var json: JSON {
        var conditions: JSONObject = [:]
        for condition in self.conditions { conditions[condition.member] = condition.condition.json }
        return ["type": .string(type), "where": .object(conditions)]
    }

    /// The jq over `{event, step, state}` that decides it.
    var jq: String {
        let type = ".event.type == \(JSON.string(type).compactText)"
        let members = conditions.map { condition in
            condition.condition.jq(".event.payload[\(JSON.string(condition.member).compactText)]")
        }
        return ([type] + members).joined(separator: " and ")
    }

    /// Why `pattern` is not a regular expression (nil: it is). Checked with ICU's syntax, close
    /// to the Oniguruma that jq's `test` uses.
    static func patternProblem(_ pattern: String) -> String? {
        do {
            _ = try NSRegularExpression(pattern: pattern)
            return nil
        } catch {
            return "`matches` is not a regular expression: \(pattern)"
        }
    }
}
