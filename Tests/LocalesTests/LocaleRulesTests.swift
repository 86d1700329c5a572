import Core
import Locales
import TestSupport
import Testing

/// ICU's CLDR rules as the engine uses them (Cases/cldr-plurals.yaml, Cases/formats.yaml).
struct LocaleRulesTests {
    /// Every whole number 0…1000 takes the category CLDR's own rule text gives it.
    @Test(
        arguments: try CaseFile("cldr-plurals.yaml").list(
            "locales", keys: CaseKeys(others: ["locale", "rules"])))
    func pluralCategoriesMatchCLDR(_ row: JSON) throws {
        let code = try #require(row["locale"]?.stringValue)
        let rules = try #require(LocaleRules.for(code), "ICU has no rules for \(code)")
        let conditions = try (row["rules"]?.objectValue ?? [:]).map { name, text in
            (try #require(PluralCategory(rawValue: name)), try #require(text.stringValue))
        }
        #expect(rules.pluralCategories == (conditions.map(\.0) + [.other]).sorted())
        var wrong: [String] = []
        for number in 0...1000 {
            let expected = conditions.first { CLDRCondition.holds($0.1, for: number) }?.0 ?? .other
            let got = rules.pluralCategory(Double(number))
            if got != expected { wrong.append("\(number): \(got) (CLDR: \(expected))") }
        }
        #expect(wrong.isEmpty, "\(code): \(wrong.prefix(10))")
    }

    @Test(
        arguments: try CaseFile("formats.yaml").cases(
            keys: CaseKeys(
                expecting: ["category", "formatted"],
                others: ["locale", "number", "digits", "weekday", "short", "instant", "skeleton", "zone"])))
    func formats(_ testCase: NamedCase) throws {
        let rules = try #require(LocaleRules.for(testCase["locale"]!.stringValue!))
        let digits = testCase["digits"]?.numberValue.map { Int($0) }
        if let number = testCase["number"]?.numberValue {
            if let category = testCase["category"]?.stringValue {
                #expect(rules.pluralCategory(number, fractionDigits: digits).rawValue == category)
            }
            if let formatted = testCase["formatted"]?.stringValue {
                #expect(rules.format(number, fractionDigits: digits) == formatted)
            }
        } else if let weekday = testCase["weekday"]?.numberValue {
            let wide = testCase["short"]?.boolValue != true
            #expect(rules.weekdayName(Int(weekday), wide: wide) == testCase["formatted"]?.stringValue)
        } else {
            let instant = try #require(testCase["instant"]?.numberValue)
            let date = rules.formatDate(
                instant, skeleton: testCase["skeleton"]!.stringValue!, timeZone: testCase["zone"]?.stringValue)
            #expect(date == testCase["formatted"]?.stringValue)
        }
    }

    @Test func anUnknownLocaleHasNoRules() {
        #expect(LocaleRules.for("") == nil)
        #expect(LocaleRules.for("рус") == nil)
    }
}

/// CLDR's plural condition syntax for whole numbers (i the number, v = 0, n = i): `or` of
/// `and` of `operand [% mod] (=|!=) ranges`, ranges like `2..4,9`.
enum CLDRCondition {
    static func holds(_ condition: String, for number: Int) -> Bool {
        condition.components(separatedBy: " or ").contains { conjunction in
            conjunction.components(separatedBy: " and ").allSatisfy { relation(String($0), number) }
        }
    }

    private static func relation(_ text: String, _ number: Int) -> Bool {
        let negated = text.contains("!=")
        let parts = text.components(separatedBy: negated ? "!=" : "=")
        let left = parts[0].split(separator: " ")
        var value = left[0] == "v" ? 0 : number
        if left.count == 3, left[1] == "%" { value %= Int(left[2])! }
        let matches = parts[1].trimmingCharacters(in: .whitespaces).split(separator: ",").contains { range in
            let bounds = range.components(separatedBy: "..").map { Int($0)! }
            return (bounds[0]...(bounds.last!)).contains(value)
        }
        return matches != negated
    }
}
