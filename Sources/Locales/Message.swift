/// A text in the engine's small message format, parsed once (when its locale file loads) and
/// rendered many times:
///
/// - `{name}`: the argument `name` (a number in the locale's digits: 8 500);
/// - `{count, plural, one {# день} few {# дня} many {# дней} other {# дня}}`: the branch of
///   the argument's CLDR plural category, or of an exact value (`=0 {…}`); `#` in a branch is
///   the number in the locale's digits; `other` is required;
/// - `'{'`, `'}'` and `'#'` write the character itself; any other apostrophe is text.
public struct Message: Sendable, Equatable {
    /// The text as written.
    public let source: String
    let parts: [Part]

    indirect enum Part: Sendable, Equatable {
        case text(String)
        case argument(String)
        case plural(Plural)
        /// `#`: the number of the plural around it.
        case number
    }

    struct Plural: Sendable, Equatable {
        var argument: String
        var exact: [(value: Double, parts: [Part])]
        var forms: [PluralCategory: [Part]]

        static func == (a: Plural, b: Plural) -> Bool {
            a.argument == b.argument && a.forms == b.forms && a.exact.map(\.value) == b.exact.map(\.value)
                && a.exact.map(\.parts) == b.exact.map(\.parts)
        }
    }

    /// Parses `source`; a ``MessageSyntaxError`` names the character where it goes wrong.
    public init(_ source: String) throws(MessageSyntaxError) {
        self.source = source
        var parser = MessageParser(source)
        parts = try parser.parseAll()
    }

    /// Every argument the text reads (`{name}`, and the argument of each plural), sorted.
    public var arguments: [String] {
        var names = Set<String>()
        Self.collect(parts, into: &names)
        return names.sorted()
    }

    /// Each plural argument with the CLDR categories its branches give (exact values aside).
    public var plurals: [(argument: String, categories: Set<PluralCategory>)] {
        var found: [(String, Set<PluralCategory>)] = []
        Self.collectPlurals(parts, into: &found)
        return found
    }

    /// How many characters the text can take at most: its letters, with each argument and `#`
    /// counted as ``argumentWidth`` characters and the longest branch of each plural.
    public var maximumLength: Int { Self.length(parts) }

    /// How many characters an argument counts for in ``maximumLength``.
    public static let argumentWidth = 4

    /// The text with `arguments` in place, plural branches chosen and numbers written by
    /// `rules`. An argument not given is written as `{name}`, so that a missing one shows.
    public func render(_ arguments: [String: TextArgument], rules: LocaleRules) -> String {
        // Most texts are one piece of text: it is shared, not copied.
        if parts.count == 1, case .text(let text) = parts[0] { return text }
        var output = ""
        output.reserveCapacity(source.utf8.count + 16)
        Self.render(parts, arguments, rules, number: nil, into: &output)
        return output
    }

    private static func render(
        _ parts: [Part], _ arguments: [String: TextArgument], _ rules: LocaleRules, number: Double?,
        into output: inout String
    ) {
        for part in parts {
            switch part {
            case .text(let text): output += text
            case .number: output += number.map { rules.format($0) } ?? "#"
            case .argument(let name):
                switch arguments[name] {
                case .text(let text)?: output += text
                case .number(let value)?: output += rules.format(value)
                case nil: output += "{\(name)}"
                }
            case .plural(let plural):
                guard case .number(let value)? = arguments[plural.argument] else {
                    output += "{\(plural.argument)}"
                    continue
                }
                let branch =
                    plural.exact.first { $0.value == value }?.parts
                    ?? plural.forms[rules.pluralCategory(value)] ?? plural.forms[.other] ?? []
                render(branch, arguments, rules, number: value, into: &output)
            }
        }
    }

    private static func collect(_ parts: [Part], into names: inout Set<String>) {
        for part in parts {
            switch part {
            case .argument(let name): names.insert(name)
            case .plural(let plural):
                names.insert(plural.argument)
                for branch in plural.forms.values { collect(branch, into: &names) }
                for branch in plural.exact { collect(branch.parts, into: &names) }
            case .text, .number: break
            }
        }
    }

    private static func collectPlurals(_ parts: [Part], into found: inout [(String, Set<PluralCategory>)]) {
        for part in parts {
            guard case .plural(let plural) = part else { continue }
            found.append((plural.argument, Set(plural.forms.keys)))
            for branch in plural.forms.values { collectPlurals(branch, into: &found) }
            for branch in plural.exact { collectPlurals(branch.parts, into: &found) }
        }
    }

    private static func length(_ parts: [Part]) -> Int {
        parts.reduce(0) { total, part in
            switch part {
            case .text(let text): total + text.count
            case .argument, .number: total + argumentWidth
            case .plural(let plural):
                total + (plural.forms.values.map(length) + plural.exact.map { length($0.parts) }).max()!
            }
        }
    }
}

/// A value a text is rendered with: text as given, or a number written in the locale's digits
/// (and choosing plural branches).
public enum TextArgument: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    case text(String)
    case number(Double)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
}

/// What is wrong with a message's syntax, and at which character (1-based, counted in the text).
public struct MessageSyntaxError: Error, Sendable, Equatable {
    public var message: String
    /// The character's position in the text, from 1.
    public var offset: Int
}
