import Core
import Foundation
import TestSupport
import Testing

/// The admin API of texts: every key per locale, a text rendered for sample arguments with its
/// plural forms, the checks `journey check` runs (each problem at `/texts/KEY/LOCALE`), and new
/// texts kept as a draft revision, the locale files edited line by line.
@Suite struct TextRouteTests {
    /// For the tests that store nothing: one service with the bundled rules published.
    static let shared = SharedSeededService {
        let harness = try ServiceHarness()
        _ = try ParameterRouteTests.publishBundled(harness)
        return harness
    }
    static let button = "onboarding.first_launch.button"
    static let stepsLeft = "onboarding.steps_left"

    static let refusals: [ExperimentRouteTests.Refusal] = [
        .init(body: [:], status: 422, code: "invalid_request", fields: ["/texts": "missing"]),
        .init(body: ["texts": [:]], status: 422, code: "invalid_request", fields: ["/texts": "invalid"]),
        .init(
            body: ["texts": ["Bad Key": ["ru": "x"]]], status: 422, code: "invalid_request",
            fields: ["/texts/Bad Key": "invalid"]),
        .init(
            body: ["texts": [.init(button): "Поехали"]], status: 422, code: "invalid_request",
            fields: ["/texts/\(button)": "wrong_type"]),
        .init(
            body: ["texts": [.init(button): ["de": "Los"]]], status: 422, code: "invalid_request",
            fields: ["/texts/\(button)/de": "invalid"]),
        .init(
            body: ["texts": [.init(button): ["ru": " "]]], status: 422, code: "invalid_request",
            fields: ["/texts/\(button)/ru": "invalid"]),
        .init(
            body: ["texts": [.init(button): ["ru": "{oops"]]], status: 422, code: "invalid_request",
            fields: ["/texts/\(button)/ru": "invalid"]),
        .init(
            body: ["texts": [.init(button): ["ru": "Вот это технологии"]]], status: 422, code: "invalid_request",
            fields: ["/texts": "invalid"]),
        .init(
            body: ["texts": [.init(button): ["ru": "Поехали"]], "colour": "red"], status: 422, code: "invalid_request",
            fields: ["/colour": "unknown"]),
        // The checks of `journey check`, by the gates, each at the text's field.
        .init(
            body: ["texts": [.init(button): ["ru": "Вот это технологии, просто невероятно"]]], status: 422,
            code: "gates_refused", fields: ["/texts/\(button)/ru": "text_too_long"]),
        .init(
            body: ["texts": [.init(stepsLeft): ["ru": "{count, plural, one {# шаг} many {# шагов} other {# шага}}"]]],
            status: 422, code: "gates_refused", fields: ["/texts/\(stepsLeft)/ru": "missing_plural_form"]),
        .init(
            body: ["texts": ["onboarding.first_launch.title": ["ru": "Ваш диагноз"]]], status: 422,
            code: "gates_refused",
            fields: ["/texts/onboarding.first_launch.title/ru": "wording"]),
        .init(
            body: ["texts": [.init(button): ["ru": "Поехали, {name}"]]], status: 422, code: "gates_refused",
            fields: ["/texts/\(button)/en": "placeholder_mismatch"]),
        .init(
            body: ["texts": ["onboarding.brand_new": ["ru": "Новый текст"]]], status: 422, code: "gates_refused",
            fields: [:]),
    ]

    @Test(arguments: refusals) func refusedTextsNameTheirField(_ refusal: ExperimentRouteTests.Refusal) throws {
        try Self.shared.use { harness in try FlowRouteTests.refused(refusal, path: "/v1/texts", harness) }
    }

    @Test func everyKeyWithItsTextPerLocale() throws {
        try Self.shared.use { harness in
            #expect(harness.send("GET", "/v1/texts").status == 401, "admin only")
            let answer = harness.send("GET", "/v1/texts", admin: true)
            #expect(
                answer.status == 200 && answer.json["locales"] == ["ru", "en"] && answer.json["default_locale"] == "ru")
            let keys = answer.json["keys"]?.arrayValue ?? []
            #expect(keys.count == harness.service.ruleSet.texts.keys.count, "whatever keys the locale files have")
            let button = try #require(keys.first { $0["key"] == .string(Self.button) })
            #expect(button["texts"] == ["ru": "Вот это технологии", "en": "Wow, technology"])
            #expect(button["limits"]?["ru"] == 24)
            let steps = try #require(keys.first { $0["key"] == .string(Self.stepsLeft) })
            #expect(steps["arguments"] == ["count"] && steps["plural_arguments"] == ["count"])
        }
    }

    /// Rendered for sample arguments, each plural form by CLDR's rules; a text being typed that
    /// does not parse yet is said, not refused.
    @Test(arguments: [
        (1.0, "one", "Остался 1 шаг"), (2, "few", "Осталось 2 шага"), (5, "many", "Осталось 5 шагов"),
        (11, "many", "Осталось 11 шагов"), (21, "one", "Остался 21 шаг"), (1.5, "other", "Осталось 1,5 шага"),
    ])
    func pluralFormsPreviewed(count: Double, category: String, text: String) throws {
        try Self.shared.use { harness in
            let answer = harness.send(
                "POST", "/v1/texts/render", json: ["key": .string(Self.stepsLeft), "args": ["count": 3]], admin: true)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.json["rendered"] == ["ru": "Осталось 3 шага", "en": "3 steps left"])
            let sample = answer.json["plural_samples"]?["ru"]?.arrayValue?.first { $0["count"] == .number(count) }
            #expect(
                sample?["plural_category"] == .string(category) && sample?["text"] == .string(text),
                "\(sample ?? .null)")
            let typing = harness.send(
                "POST", "/v1/texts/render", json: ["texts": ["ru": "{count, plural, one {"]], admin: true)
            #expect(typing.status == 200 && typing.json["problems"]?["ru"]?.stringValue?.isEmpty == false)
            let unknown = harness.send("POST", "/v1/texts/render", json: ["key": "nope"], admin: true)
            #expect(unknown.status == 422 && unknown.json["errors"]?[0]?["path"] == "/key")
        }
    }

    /// The check stores nothing; a kept draft edits one line per locale and is activated.
    @Test func checkedThenKeptThenActivated() throws {
        let harness = try ServiceHarness()
        let bundled = try ParameterRouteTests.publishBundled(harness)
        let body: JSON = ["texts": [.init(Self.button): ["ru": "Поехали!", "en": "Let's go!"]]]
        let checked = harness.send("POST", "/v1/texts/check", json: body, admin: true)
        #expect(checked.status == 200 && checked.json["passed"] == true, "\(checked.text.prefix(400))")
        let tooLong = harness.send(
            "POST", "/v1/texts/check", json: ["texts": [.init(Self.button): ["ru": "{count, plural, one {"]]],
            admin: true)
        #expect(tooLong.status == 200 && tooLong.json["passed"] == false, "a text being typed is checked, not refused")
        #expect(harness.send("GET", "/v1/rules/revisions", admin: true).json["revisions"]?.arrayValue?.count == 1)

        let kept = harness.send("PUT", "/v1/texts", json: body, admin: true)
        #expect(kept.status == 201 && kept.json["active"] == false, "\(kept.text.prefix(400))")
        #expect(
            kept.json["draft_revision"]?["message"]?.stringValue == "texts: \(Self.button) (en), \(Self.button) (ru)")
        let revision = try #require(kept.json["draft_revision"]?["revision"]?.stringValue)
        let diff = harness.send("GET", "/v1/rules/revisions/\(bundled)/diff/\(revision)", admin: true).json
        let lines = (diff["file_changes"]?.arrayValue ?? []).flatMap {
            $0["diff_lines"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        #expect(
            lines.filter { $0.hasPrefix("+") || $0.hasPrefix("-") } == [
                "-   \(Self.button): Wow, technology", "+   \(Self.button): \"Let's go!\"",
                "-   \(Self.button): {text: \"Вот это технологии\", limit: 24}",
                "+   \(Self.button): {text: \"Поехали!\", limit: 24}",
            ], "\(lines)")
        let activated = harness.send(
            "POST", "/v1/rules/revisions/\(revision)/activate", json: ["message": "a shorter button"], admin: true)
        #expect(activated.status == 200, "\(activated.text.prefix(300))")
    }

    /// A Dog Journey catalog text (Rules/locales/journey/ru.yaml) is listed and edited in its
    /// own file, the line that holds it.
    @Test func aCatalogTextIsEditedInTheJourneyFile() throws {
        let harness = try ServiceHarness()
        let bundled = try ParameterRouteTests.publishBundled(harness)
        let key = "journey.block.weight-baseline.title"
        let listed = harness.send("GET", "/v1/texts", admin: true).json
        let entry = listed["keys"]?.arrayValue?.first { $0["key"] == .string(key) }
        #expect(entry?["texts"]?["ru"] == "Первый замер веса" && entry?["texts"]?["en"] == "Weight baseline")
        let kept = harness.send(
            "PUT", "/v1/texts", json: ["texts": [.init(key): ["ru": "Первое взвешивание"]]], admin: true)
        #expect(kept.status == 201, "\(kept.text.prefix(1400))")
        let revision = try #require(kept.json["draft_revision"]?["revision"]?.stringValue)
        let diff = harness.send("GET", "/v1/rules/revisions/\(bundled)/diff/\(revision)", admin: true).json
        let files = diff["file_changes"]?.arrayValue ?? []
        #expect(files.count == 1, "\(diff.compactText.prefix(400))")
        #expect(files.first?["path"]?.stringValue?.hasSuffix("locales/journey/ru.yaml") == true, "\(files)")
        let lines = files.flatMap { $0["diff_lines"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        #expect(
            lines.filter { $0.hasPrefix("+") || $0.hasPrefix("-") } == [
                "-   \(key): \"Первый замер веса\"", "+   \(key): \"Первое взвешивание\"",
            ], "\(lines)")
    }
}
