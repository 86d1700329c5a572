import Core
import FeatureKit
import Features
import Foundation
import SQLite
import SQLiteStore
import Store
import Testing

@testable import Journey

/// What registration writes for a dog — the weakest-metric note, each block's personal line and
/// the metric insight cards — is kept as locale keys with their arguments, and written in the
/// reader's locale wherever it reaches the app: the views, and the answer to the registration
/// itself (`manifest_created`). Catalog texts take the dog's name and score in one pass through
/// the locale's formatter.
@Suite struct JourneyNoteTextsTests {
    struct Reader: Sendable, CustomTestStringConvertible {
        var locale: String
        /// The note on Miso's weakest metric (impulse control, 30), as seed 000 words it.
        var weakest: String
        /// Miso's bond (62) block's line: a mid score.
        var bond: String
        /// The impulse-control insight card: its label and the start of its text.
        var impulseLabel: String
        var impulseText: String
        var testDescription: String { locale }
    }

    static let readers = [
        Reader(
            locale: "ru", weakest: "Самоконтроль 30 — самая слабая метрика Miso",
            bond: "Контакт 62 — хорошая основа: Miso уже многое умеет", impulseLabel: "Самоконтроль",
            impulseText: "Самоконтроль Miso — 30, и в этом возрасте так бывает очень часто."),
        Reader(
            locale: "en", weakest: "Impulse control 30 — Miso's weakest metric",
            bond: "Bond 62 — a solid base for Miso to build on", impulseLabel: "Impulse control",
            impulseText: "Miso's impulse control is 30, which is very common at this age."),
    ]

    @Test(arguments: readers)
    func personalNotesAreWrittenInTheReadersLocale(_ reader: Reader) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        let registered = journey.send("dog_registered", JourneyBehaviourTests.registration)
        let views = journey.views(locale: reader.locale)
        let manifest = try views.manifest("miso")
        #expect(manifest["notes"] == [.string(reader.weakest)])
        let blocks = (manifest["branches"]?.arrayValue ?? []).flatMap { $0["blocks"]?.arrayValue ?? [] }
        #expect(blocks.first { $0["id"] == "impulse-control-basics" }?["personal_note"] == .string(reader.weakest))
        #expect(blocks.first { $0["id"] == "bond-building-games" }?["personal_note"] == .string(reader.bond))
        let preview = try views.preview("miso", block: "impulse-control-basics")
        #expect(preview["text_lines"]?[1] == .string(reader.weakest))
        // The answer to the registration says the same, in its reader's locale.
        let created = try #require(registered.effects.first { $0["type"] == "manifest_created" })
        #expect(journey.rendered(created["notes"], reader.locale) == [.string(reader.weakest)])
    }

    @Test(arguments: readers)
    func theRegistrationsInsightsAreWrittenInTheReadersLocale(_ reader: Reader) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        let registered = journey.send("dog_registered", JourneyBehaviourTests.registration)
        let created = try #require(registered.effects.first { $0["type"] == "manifest_created" })
        let answered = try #require(journey.rendered(created["insights"], reader.locale)?.arrayValue)
        #expect(!JSON.array(answered).compactText.contains(DeferredText.marker), "\(answered)")
        let impulse = try #require(answered.first { $0["metric"] == "impulse_control" })
        #expect(impulse["label"] == .string(reader.impulseLabel))
        #expect(impulse["text"]?.stringValue?.hasPrefix(reader.impulseText) == true, "\(impulse)")
        // The journey view shows the same cards.
        let shown = try journey.views(locale: reader.locale).journey("miso")["insights"]?.arrayValue ?? []
        #expect(shown.first { $0["metric"] == "impulse_control" } == impulse)
    }

    /// A manifest kept before notes and cards were keys: its English notes stay as kept (there
    /// is no key to write them from), its metric cards are written from the catalog's keys.
    @Test func aManifestKeptWithEnglishTextsShowsItsCardsInTheReadersLocale() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let stored = try #require(try journey.store.manifest(dog: "miso"))
        var old = try #require(stored.manifest.objectValue)
        let english = "Impulse control 30 — Miso's weakest metric"
        old["notes"] = [.string(english)]
        old["insights"] = .array(
            (old["insights"]?.arrayValue ?? []).map { card in
                guard case .object(var card) = card, card["metric"] == "impulse_control" else { return card }
                card["label"] = "Impulse control"
                card["text"] = "Miso's impulse control is 30."
                return .object(card)
            })
        old["branches"] = .array(
            (old["branches"]?.arrayValue ?? []).map { branch in
                var branch = branch.objectValue ?? [:]
                branch["blocks"] = .array(
                    (branch["blocks"]?.arrayValue ?? []).map { block in
                        guard case .object(var block) = block, block["id"] == "impulse-control-basics" else {
                            return block
                        }
                        block["personal_note"] = .string(english)
                        return .object(block)
                    })
                return .object(branch)
            })
        try journey.store.connection.run(
            "UPDATE manifests SET manifest = ? WHERE dog_id = 'miso'", [.text(JSON.object(old).compactText)])
        let store = try SQLiteStore(path: journey.path, schema: Features.all.schema)
        let views = JourneyViews(
            store: store, evaluator: journey.evaluator, now: journey.clock, texts: journey.texts("ru"))
        #expect(try views.manifest("miso")["notes"] == [.string(english)])
        #expect(try views.preview("miso", block: "impulse-control-basics")["text_lines"]?[1] == .string(english))
        let card = try views.journey("miso")["insights"]?.arrayValue?.first { $0["metric"] == "impulse_control" }
        #expect(card?["label"] == "Самоконтроль")
        #expect(card?["text"]?.stringValue?.hasPrefix("Самоконтроль Miso — 30") == true, "\(card ?? .null)")
    }

    /// A dog named `{value}` keeps its name: the name is not a placeholder for the next one.
    @Test(arguments: [
        ("ru", "Самоконтроль {value} — 30, и в этом возрасте"),
        ("en", "{value}'s impulse control is 30, which is very common"),
    ])
    func aNameThatReadsLikeAPlaceholderStaysAsItIs(locale: String, expected: String) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        var registration = JourneyBehaviourTests.registration
        registration["name"] = "{value}"
        let registered = journey.send("dog_registered", registration)
        let created = try #require(registered.effects.first { $0["type"] == "manifest_created" })
        let answered = journey.rendered(created["insights"], locale)?.arrayValue ?? []
        let shown = try journey.views(locale: locale).journey("miso")["insights"]?.arrayValue ?? []
        for cards in [answered, shown] {
            let text = cards.first { $0["metric"] == "impulse_control" }?["text"]?.stringValue ?? ""
            #expect(text.hasPrefix(expected), "\(text)")
        }
    }

    /// A catalog text's numbers are written in the locale's digits.
    @Test(arguments: [("ru", "{value}: 8\u{00A0}500 — {value}"), ("en", "{value}: 8,500 — {value}")])
    func aCatalogTextsNumbersAreInTheLocalesDigits(locale: String, expected: String) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        var registration = JourneyBehaviourTests.registration
        registration["name"] = "{value}"
        journey.send("dog_registered", registration)
        let map = try journey.views(locale: locale).state("miso").map
        #expect(map.render("{name}: {value} — {name}", ["value": 8500]) == expected)
        // A draft's text that is no valid message still gets the name.
        #expect(map.render("{name} {", ["value": 8500]) == "{value} {")
        // A text without `{` or `'` is returned as it is; a quoted brace is the character.
        #expect(map.render("Самоконтроль растёт") == "Самоконтроль растёт")
        #expect(map.render("'{'name'}' — {name}") == "{name} — {value}")
    }
}
