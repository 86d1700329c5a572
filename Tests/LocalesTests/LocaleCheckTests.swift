import Core
import FeatureKit
import Features
import RuleEngine
import TestSupport
import Testing

/// `journey check` on locale files (Cases/locale-check.yaml): each refusal at its
/// file:line:col, and the bundled locales load.
struct LocaleCheckTests {
    @Test(
        arguments: try CaseFile("locale-check.yaml").cases(
            keys: CaseKeys(
                expecting: ["diagnostics"], others: ["files"],
                parts: ["diagnostics": CaseKeys(expecting: ["code"], others: ["at", "message"])])))
    func refused(_ testCase: NamedCase) throws {
        let directory = try TemporaryDirectory()
        for (path, text) in testCase["files"]!.objectValue! { try directory.write(path, text.stringValue!) }
        let result = Self.withoutCodeTexts(directory.path).load()
        let errors = result.diagnostics.filter { $0.severity == .error }
        let rendered = errors.map(\.description).joined(separator: "\n")
        let expected = testCase["diagnostics"]!.arrayValue!
        #expect(result.ruleSet == nil)
        #expect(errors.count == expected.count, "\(rendered)")
        for (actual, want) in zip(errors, expected) {
            #expect(actual.location.description == directory.path + "/" + want["at"]!.stringValue!, "\(rendered)")
            #expect(actual.code == want["code"]!.stringValue!, "\(rendered)")
            #expect(actual.message.contains(want["message"]!.stringValue!), "\(rendered)")
        }
    }

    /// Every feature's kinds, with no key the features' code renders required: the cases'
    /// locale files need not hold the bundled features' keys.
    static func withoutCodeTexts(_ directory: String) -> RuleSetLoader {
        let all = Features.all
        return RuleSetLoader(
            rulesDirectory: directory, pluginsDirectory: nil,
            kinds: [LocaleDocumentKind(usedKeys: [])] + all.documentKinds.filter { !($0 is LocaleDocumentKind) },
            ruleKinds: all.ruleKinds)
    }

    /// A key a feature's code renders (the onboarding view's steps left) must be in the locales.
    @Test func aKeyTheCodeRendersIsRequired() throws {
        let directory = try TemporaryDirectory()
        try directory.write("locales/ru.yaml", "locale: ru\ndefault: true\ntexts:\n  greeting: Привет\n")
        let result = Features.all.loader(rulesDirectory: directory.path, pluginsDirectory: nil).load()
        let errors = result.diagnostics.filter { $0.severity == .error }
        // One error per key the features' code renders.
        let rendered = Set(Features.all.features.flatMap(\.texts).map(\.key))
        #expect(errors.count == rendered.count && errors.allSatisfy { $0.code == "missing_text" })
        #expect(errors.allSatisfy { $0.location.description == directory.path + "/locales/ru.yaml:1:1" })
        #expect(
            errors.contains {
                $0.message
                    == "`onboarding.steps_left` (used by GET /v1/users/{user_id}/onboarding (steps_left_text)) has no text in any locale: add it to ru's file"
            })
    }

    /// The bundled locales load, with ru the default and every key in each.
    @Test func theBundledLocalesLoad() throws {
        let result = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
        let texts = ruleSet.texts
        #expect(texts.codes == ["ru", "en"])
        #expect(texts.render("onboarding.first_launch.button", locale: "ru") == "Вот это технологии")
        #expect(ruleSet.files.contains { $0.hasSuffix("Rules/locales/ru.yaml") })
    }
}
