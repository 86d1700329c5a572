import Core
import Locales

/// A text kept in a stored payload (a reminder's) as its key and arguments, and rendered when
/// it is read, in the reader's locale: a push scheduled today is written in the language its
/// recipient has when the sender reads `GET /v1/reminders/due`.
///
/// Stored as `{"$text": KEY, "args": {…}, "default": TEXT}`; an argument is a number, a text,
/// or another deferred text (a challenge's title, an amount with its unit), rendered in the
/// same locale. `default` is what shows when no locale has the key (a challenge without a
/// title in the locale files shows the title its file gives).
public enum DeferredText {
    /// The member that marks a deferred text.
    public static let marker = "$text"

    /// `key` with `arguments`, to be rendered when read; when no locale has `key`, the key
    /// `or` (with the same arguments), else `default`.
    public static func json(
        _ key: String, _ arguments: JSONObject = [:], or otherKey: String? = nil, default fallback: String? = nil
    ) -> JSON {
        var object: JSONObject = [marker: .string(key)]
        if !arguments.isEmpty { object["args"] = .object(arguments) }
        if let otherKey { object["or"] = .string(otherKey) }
        if let fallback { object["default"] = .string(fallback) }
        return .object(object)
    }

    /// `value` with every deferred text in it (at any depth) rendered in `texts`' locale.
    public static func rendered(_ value: JSON, texts: RequestTexts) -> JSON {
        switch value {
        case .object(let object):
            if let key = object[marker]?.stringValue { return .string(render(key, object, texts: texts)) }
            var result = object
            for (name, member) in object { result[name] = rendered(member, texts: texts) }
            return .object(result)
        case .array(let items):
            return .array(items.map { rendered($0, texts: texts) })
        default:
            return value
        }
    }

    /// What is wrong with the deferred texts in `value` (a rule's output), at any depth: a
    /// `$text` that is not a key, `args` that are not an object, `or`/`default` that are not
    /// text; nil when they are fine (or there are none).
    public static func problem(in value: JSON) -> String? {
        switch value {
        case .object(let object):
            if let key = object[marker] {
                guard let key = key.stringValue, !key.isEmpty else {
                    return "`\(marker)` must be a text key such as journey.check.later, got \(key.compactText)"
                }
                if let args = object["args"], args.objectValue == nil {
                    return "the `args` of `\(key)` must be an object of numbers and texts, got \(args.typeName)"
                }
                for name in ["or", "default"] where object[name] != nil && object[name]?.stringValue == nil {
                    return "the `\(name)` of `\(key)` must be text"
                }
            }
            for (_, member) in object { if let problem = problem(in: member) { return problem } }
            return nil
        case .array(let items):
            for item in items { if let problem = problem(in: item) { return problem } }
            return nil
        default:
            return nil
        }
    }

    /// Whether `value` holds a deferred text anywhere.
    public static func contains(_ value: JSON) -> Bool {
        switch value {
        case .object(let object): object[marker] != nil || object.values.contains { contains($0) }
        case .array(let items): items.contains { contains($0) }
        default: false
        }
    }

    private static func render(_ key: String, _ object: JSONObject, texts: RequestTexts) -> String {
        var key = key
        if !texts.catalog.has(key) {
            if let otherKey = object["or"]?.stringValue, texts.catalog.has(otherKey) {
                key = otherKey
            } else if let fallback = object["default"]?.stringValue {
                return fallback
            }
        }
        var arguments: [String: TextArgument] = [:]
        for (name, value) in object["args"]?.objectValue ?? [:] {
            switch rendered(value, texts: texts) {
            case .number(let number): arguments[name] = .number(number)
            case .string(let text): arguments[name] = .text(text)
            case let other: arguments[name] = .text(other.compactText)
            }
        }
        return texts(key, arguments)
    }
}
