import Core
import Locales
import TestSupport
import Testing

/// The message format rendered per locale (Cases/render.yaml), and the catalog's fallback.
struct MessageTests {
    @Test(
        arguments: try CaseFile("render.yaml").cases(
            keys: CaseKeys(expecting: ["expect"], others: ["locale", "text", "args"])))
    func renders(_ testCase: NamedCase) throws {
        let rules = try #require(LocaleRules.for(testCase["locale"]!.stringValue!))
        let message = try Message(testCase["text"]!.stringValue!)
        var arguments: [String: TextArgument] = [:]
        for (name, value) in testCase["args"]?.objectValue ?? [:] {
            arguments[name] = value.numberValue.map(TextArgument.number) ?? .text(value.stringValue ?? "")
        }
        #expect(message.render(arguments, rules: rules) == testCase["expect"]!.stringValue!)
    }

    @Test func theCatalogFallsBackToTheDefaultLocale() throws {
        let ru = LocaleTexts(
            locale: "ru", isDefault: true, rules: try #require(LocaleRules.for("ru")),
            texts: ["a": LocalizedText(message: try Message("А")), "b": LocalizedText(message: try Message("Б"))])
        let en = LocaleTexts(
            locale: "en", isDefault: false, rules: try #require(LocaleRules.for("en")),
            texts: ["a": LocalizedText(message: try Message("A"))])
        let catalog = TextCatalog([en, ru])
        #expect(catalog.codes == ["ru", "en"])
        #expect(catalog.render("a", locale: "en") == "A")
        #expect(catalog.render("b", locale: "en") == "Б")
        #expect(catalog.render("a", locale: "de") == "А")
        #expect(catalog.render("nothing", locale: "ru") == "nothing")
    }

    @Test(
        arguments: [
            ("ru-RU,ru;q=0.9,en-US;q=0.8", "ru"), ("en-GB;q=0.9, ru;q=0.5", "en"), ("de, en;q=0.1", "en"),
            ("de-DE,fr", nil), ("*", nil), ("", nil), ("en;q=0, ru;q=0.2", "ru"), ("EN", "en"), ("ru;q=abc, en", "en"),
        ] as [(String, String?)])
    func acceptLanguage(_ header: String, _ expected: String?) throws {
        let catalog = TextCatalog([
            LocaleTexts(locale: "ru", isDefault: true, rules: try #require(LocaleRules.for("ru")), texts: [:]),
            LocaleTexts(locale: "en", isDefault: false, rules: try #require(LocaleRules.for("en")), texts: [:]),
        ])
        #expect(catalog.negotiate(acceptLanguage: header) == expected)
    }
}
