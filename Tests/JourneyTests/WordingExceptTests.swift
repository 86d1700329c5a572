import Testing

@testable import Journey

/// A forbidden phrase's `except` phrases say what the rule wants («не диагноз», "not a
/// diagnosis"): a text holding only them passes, the phrase anywhere else is still refused.
struct WordingExceptTests {
    @Test(arguments: [
        ("Это наблюдение, не диагноз.", false),
        ("Диагноз: дисплазия.", true),
        ("Это не диагноз, а диагноз ставит ветеринар.", true),
    ])
    func russian(_ text: String, refused: Bool) {
        let rule = WordingRules.Forbidden(
            phrase: "диагноз", reason: "r", instead: nil, locale: "ru", except: ["не диагноз"])
        #expect(rule.isUsed(in: text) == refused)
    }

    @Test func english() {
        let rule = WordingRules.Forbidden(
            phrase: "diagnos", reason: "r", instead: nil, locale: "en", except: ["not a diagnosis"])
        #expect(!rule.isUsed(in: "This is an observation, not a diagnosis."))
        #expect(rule.isUsed(in: "We diagnose hip dysplasia."))
    }
}
