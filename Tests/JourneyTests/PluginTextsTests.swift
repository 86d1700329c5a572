import CheckPlugins
import Core
import Engine
import FeatureKit
import Foundation
import RuleEngine
import TestSupport
import Testing

/// What the check plugins say is a locale text's key with its arguments — numbers kept numbers,
/// amounts in their unit's plural-aware key — written in the reader's locale when shown: «5,5 кг»
/// in Russian, "5.5 kg" in English; never English assembled in jq.
@Suite struct PluginTextsTests {
    struct Said: Sendable, CustomTestStringConvertible {
        var name: String
        /// The answers to growth-check's predict (kg), in turn; the last one is told.
        var answers: [JSONObject]
        var key: String
        var ru: String
        var en: String
        var testDescription: String { name }
    }

    static let predictCases: [Said] = [
        Said(
            name: "the guess alone reveals the reference", answers: [["guess": 5.5]],
            key: "journey.check.predict.guessed",
            ru: "Ваш прогноз: 5,5 кг. Обычно: 4–8 кг. Miso рядом — проверим?",
            en: "Your guess: 5.5 kg. Typical: 4–8 kg. Now check Miso?"),
        Said(
            name: "the measurement completes the pair", answers: [["guess": 7], ["measured": 7.5]],
            key: "journey.check.predict.measured",
            ru: "Miso: 7,5 кг, ваш прогноз — 7 кг. Обычно: 4–8 кг.",
            en: "You guessed 7 kg; Miso measured 7.5 kg. Typical: 4–8 kg."),
        Said(
            name: "a big miss is told warmly", answers: [["guess": 20, "measured": 8.5]],
            key: "journey.check.predict.surprise",
            ru: "Вот это интрига! Зато теперь знаете точно: Miso — 8,5 кг, прогноз был 20 кг. Обычно: 4–8 кг.",
            en:
                "Quite a difference — and now you know for sure: Miso measured 8.5 kg (you guessed 20 kg). Typical: 4–8 kg."
        ),
        Said(
            name: "later keeps the block open", answers: [["outcome": "later"]], key: "journey.check.later_reply",
            ru: "Хорошо, напомним вечером.", en: "No problem — we'll remind you this evening."),
    ]

    /// A dog whose growth-check (predict, kg) is open.
    static func growthCheck() throws -> JourneyHarness {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try BlockResultTests.prepare(journey, "weight-baseline")
        journey.send("weight_saved", ["kg": 7.4])
        journey.clock += 3600
        journey.send("block_started", ["block_id": "growth-check"])
        return journey
    }

    @Test(arguments: predictCases)
    func predictSaysAKeyWrittenInTheReadersLocale(_ said: Said) throws {
        let journey = try Self.growthCheck()
        var result: IngestResult?
        for answer in said.answers {
            journey.clock += 60
            result = journey.send("check_answered", ["block_id": "growth-check", "answer": .object(answer)])
            #expect(result?.status == .accepted, "\(answer): \(result?.json.compactText ?? "")")
        }
        let told = try #require(result?.effects.first { $0["type"] == "check_answered" }?["interpretation"])
        #expect(told[DeferredText.marker] == .string(said.key), "\(told.compactText)")
        if let guess = told["args"]?["guess"] {
            // The number stays a number; its unit is a key of its own.
            #expect(guess[DeferredText.marker] == "journey.unit.kg" && guess["args"]?["count"]?.numberValue != nil)
        }
        #expect(journey.rendered(told, "ru") == .string(said.ru))
        #expect(journey.rendered(told, "en") == .string(said.en))
    }

    @Test func theLaterPushIsKeptAsAKeyAndWrittenWhenRead() throws {
        let journey = try Self.growthCheck()
        journey.send("check_answered", ["block_id": "growth-check", "answer": ["guess": 6]])
        let later = journey.send("check_answered", ["block_id": "growth-check", "answer": ["outcome": "later"]])
        let scheduled = try #require(later.effects.first { $0["type"] == "reminder_scheduled" })
        let text = try #require(scheduled["payload"]?["text"])
        #expect(text[DeferredText.marker] == "journey.check.predict.remind_check", "\(text.compactText)")
        #expect(journey.rendered(text, "ru") == "Miso рядом? Проверим ваш прогноз.")
        #expect(journey.rendered(text, "en") == "Ready to check your guess about Miso?")
    }

    @Test func anAlarmingPickLeadsGentlyInTheOwnersLocale() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try BlockResultTests.prepare(journey, "weight-baseline")
        journey.send("weight_saved", ["kg": 7.4])
        journey.send("block_started", ["block_id": "vaccination-record"])
        let picked = journey.send(
            "check_answered", ["block_id": "vaccination-record", "answer": ["option": "date-passed"]])
        #expect(picked.status == .accepted, "\(picked.json.compactText)")
        let told = try #require(picked.effects.first { $0["type"] == "check_answered" }?["interpretation"])
        #expect(
            journey.rendered(told, "ru")?.stringValue?.hasSuffix(" — стоит показать ветеринару на плановом визите.")
                == true)
        #expect(
            journey.rendered(told, "en")?.stringValue?.hasSuffix(" — worth showing a vet at the next planned visit.")
                == true)
        // A record keeps text: its note is written in the owner's locale (no profile: ru).
        let record = try #require(picked.effects.first { $0["type"] == "record_added" })
        #expect(record["payload"]?["note"] == "Это наблюдение, не диагноз.")
        #expect(record["payload"]?["vet_hint"] == "Стоит показать ветеринару на плановом визите.")
        #expect(!record.compactText.contains(DeferredText.marker))
    }

    struct Amount: Sendable, CustomTestStringConvertible {
        var unit: String
        var count: Double
        var ru: String
        var en: String
        var testDescription: String { "\(JSON.format(number: count)) \(unit)" }
    }

    /// Units by CLDR plural category: one, few, many, other (a fraction) in Russian.
    static let amounts: [Amount] = [
        Amount(unit: "seconds", count: 1, ru: "1 секунда", en: "1 second"),
        Amount(unit: "seconds", count: 3, ru: "3 секунды", en: "3 seconds"),
        Amount(unit: "seconds", count: 11, ru: "11 секунд", en: "11 seconds"),
        Amount(unit: "seconds", count: 21, ru: "21 секунда", en: "21 seconds"),
        Amount(unit: "minutes", count: 1.5, ru: "1,5 минуты", en: "1.5 minutes"),
        Amount(unit: "times", count: 4, ru: "4 раза", en: "4 times"),
        Amount(unit: "times", count: 5, ru: "5 раз", en: "5 times"),
        Amount(unit: "kg", count: 8500, ru: "8\u{A0}500 кг", en: "8,500 kg"),
        Amount(unit: "cm", count: 40, ru: "40 cm", en: "40 cm"),
    ]

    @Test(arguments: amounts)
    func amountsTakeTheirUnitsPluralForm(_ amount: Amount) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        // As predict.yaml writes an amount: its unit's key, else `journey.unit.other`.
        let json = DeferredText.json(
            "journey.unit." + amount.unit, ["count": .number(amount.count), "unit": .string(amount.unit)],
            or: "journey.unit.other")
        #expect(journey.rendered(json, "ru") == .string(amount.ru))
        #expect(journey.rendered(json, "en") == .string(amount.en))
    }

    /// Every key a plugin names, and every predict unit of the catalog, has a text in every locale.
    @Test func everyKeyThePluginsNameHasATextInEveryLocale() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        let catalog = journey.evaluator.ruleSet.texts
        var keys: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: Repository.plugins)
        where name.hasSuffix(".yaml") {
            let text = try String(contentsOfFile: Repository.plugins + "/" + name, encoding: .utf8)
            for match in text.matches(of: #/"?\$text"?: *"?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)(?![a-z0-9_.\\])/#) {
                keys.insert(String(match.1))
            }
        }
        let catalogText = try String(contentsOfFile: Repository.rules + "/journey/catalog.yaml", encoding: .utf8)
        for match in catalogText.matches(of: #/\n *unit: *([a-z_]+)\n *slider:/#) {
            keys.insert("journey.unit." + match.1)
        }
        #expect(keys.count > 12, "\(keys.sorted())")
        for key in keys.sorted() {
            for locale in catalog.locales {
                #expect(locale.texts[key] != nil, "\(locale.locale) has no text for \(key)")
            }
        }
    }

    /// The `check_answer` kind refuses a text key that is not one, or arguments that are not an object.
    static let malformed: [(JSON, String)] = [
        (["$text": 5], "`interpretation`: `$text` must be a text key"),
        (["$text": "journey.check.later_reply", "args": "Q"], "`interpretation`: the `args` of"),
        (["$text": "journey.unit.kg", "args": ["count": 1], "or": 2], "`interpretation`: the `or` of"),
    ]

    @Test(arguments: malformed)
    func aMalformedTextKeyIsRefused(_ interpretation: JSON, _ problem: String) {
        let output: JSON = ["records": [], "complete": false, "interpretation": interpretation]
        #expect(RuleKind.checkAnswer.checkOutput(output)?.hasPrefix(problem) == true)
        let fine: JSON = [
            "records": [], "complete": false, "interpretation": DeferredText.json("journey.check.later_reply"),
        ]
        #expect(RuleKind.checkAnswer.checkOutput(fine) == nil)
    }
}
