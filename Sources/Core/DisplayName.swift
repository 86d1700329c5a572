/// The rule for a name one user shows to others (a profile's `display_name`, read in a
/// challenge's feed and ranking): the text trimmed of white space at both ends, then 1 to
/// ``maximumLength`` characters (as people count them: «👩🏽‍💻» is one), one line, with at least
/// one letter, digit, mark, punctuation or symbol, and nothing that is invisible or changes how
/// the text around it reads: no control characters (U+0000–U+001F, U+007F–U+009F), no line or
/// paragraph separators, no bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE and the other
/// embeddings, isolates and marks that make «Анна‮5+» read as something else), no other format
/// characters except the zero-width joiner and non-joiner and the tags that emoji and some
/// scripts need, no private-use or unassigned code points, no more than ``maximumMarks``
/// combining marks on one character, and at most ``maximumBytes`` bytes of UTF-8 (an emoji
/// sequence is one character however long it is joined).
public enum DisplayName {
    /// The most characters a name has.
    public static let maximumLength = 40
    /// The most combining marks one character carries (a stack of hundreds covers the lines around).
    public static let maximumMarks = 4
    /// The most UTF-8 bytes a name takes (forty emoji of four code points each fit).
    public static let maximumBytes = 640

    /// `text` trimmed, or what is wrong with it (to follow the field's name: `must …`).
    public static func checked(_ text: String) -> Result<String, Problem> {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return .failure(Problem(.invalid, "must not be blank")) }
        let name = String(scalars[first...last])
        if let scalar = name.unicodeScalars.first(where: isRefused) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return .failure(Problem(.invalid, "must not contain \(kind(of: scalar)) (\(code))"))
        }
        guard name.count <= maximumLength else {
            return .failure(Problem(.tooLong, "must be at most \(maximumLength) characters, got \(name.count)"))
        }
        guard name.utf8.count <= maximumBytes else {
            return .failure(Problem(.tooLong, "must be at most \(maximumBytes) bytes of UTF-8, got \(name.utf8.count)"))
        }
        if name.contains(where: { $0.unicodeScalars.count { isMark($0) } > maximumMarks }) {
            return .failure(Problem(.invalid, "must not stack more than \(maximumMarks) marks on one character"))
        }
        guard name.unicodeScalars.contains(where: isVisible) else {
            return .failure(Problem(.invalid, "must contain a letter, digit or symbol"))
        }
        return .success(name)
    }

    /// What is wrong with a name.
    public struct Problem: Error, Equatable, Sendable {
        public var code: FieldError.Code
        public var message: String

        init(_ code: FieldError.Code, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The bidi controls: the marks (ALM, LRM, RLM), embeddings and overrides (LRE…RLO), and
    /// isolates (LRI…PDI).
    static let bidiControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate: return true
        case .format:
            return scalar.value != 0x200C && scalar.value != 0x200D && !(0xE0020...0xE007F).contains(scalar.value)
        default: return false
        }
    }

    static func kind(of scalar: Unicode.Scalar) -> String {
        if bidiControls.contains(scalar.value) { return "bidi controls" }
        switch scalar.properties.generalCategory {
        case .control: return "control characters"
        case .lineSeparator, .paragraphSeparator: return "line breaks"
        case .privateUse, .unassigned: return "private-use or unassigned code points"
        default: return "invisible format characters"
        }
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .nonspacingMark || category == .enclosingMark
    }

    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .connectorPunctuation, .dashPunctuation, .openPunctuation,
            .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation, .mathSymbol,
            .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }
}

extension FieldReader {
    /// A display name by ``DisplayName``'s rule, trimmed; nil when absent or null (clearing it).
    public mutating func optionalDisplayName(_ key: String) throws(FieldError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            throw fail(key, .wrongType, "must be a string or null, got \(value.typeName)")
        }
        switch DisplayName.checked(text) {
        case .success(let name): return name
        case .failure(let problem): throw fail(key, problem.code, problem.message)
        }
    }
}
