import Core
import FeatureKit
import Features
import Foundation
import SQLite
import SQLiteStore
import Store
import TestSupport
import Testing

@testable import Journey

/// The manifest in the product document's shape, the block content its references point to,
/// and the personal line on Today and the preview.
@Suite struct ManifestDocumentTests {
    static let registration = JourneyBehaviourTests.registration

    @Test func theManifestHasTheDocumentsShapeAndItsReferencesResolve() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let english = journey.views(in: "en")
        let manifest = try english.manifest("miso")
        #expect(manifest["dog_id"] == "miso")
        #expect(manifest["age_range"] == "4-8m")
        #expect(manifest["recommended_block_id"] == "breed-traits")
        let blocks = (manifest["branches"]?.arrayValue ?? []).flatMap { $0["blocks"]?.arrayValue ?? [] }
        #expect(blocks.count == 21)
        for block in blocks {
            let id = try #require(block["id"]?.stringValue)
            #expect(block["theory_ref"]?.stringValue == "/v1/dogs/miso/blocks/\(id)#theory")
            #expect(block["check"]?["content_ref"]?.stringValue == "/v1/dogs/miso/blocks/\(id)#check")
            // The reference resolves: the block route serves the cards and the check's content.
            let content = try english.block("miso", block: id)
            let cards = content["theory"]?.arrayValue ?? []
            #expect((3...5).contains(cards.count), "\(id): \(cards.count) cards")
            #expect(!cards.contains { $0.stringValue?.contains("{name}") != false }, "\(id): rendered cards")
            #expect(content["check"]?["type"] == block["check"]?["type"])
            #expect(content["check"]?["content"]?.objectValue?.isEmpty == false, "\(id)")
            #expect(content["check"]?["content"]?["record"] == nil, "\(id): record settings stay server-side")
            #expect(content["personal_note"] == block["personal_note"])
            #expect(manifest["statuses"]?[id]?.stringValue == content["status"]?.stringValue)
        }
        let impulse = try #require(blocks.first { $0["id"] == "impulse-control-basics" })
        #expect(impulse["personal_note"] == "Impulse control 30 — Miso's weakest metric")
        #expect(
            impulse["action"] == [
                "type": "start_course", "label": "Start Miso's impulse course", "course_id": "impulse-101",
                "auto_complete_if": "auto_complete.course_started",
            ])
        let weight = try #require(blocks.first { $0["id"] == "weight-baseline" })
        #expect(weight["check"]?["fallback"]?["type"] == "remind_later")
        #expect(weight["action"]?["course_id"] == nil)
    }

    /// A manifest stored before `dog_id`, `age_range`, `recommended_block_id` and the blocks'
    /// `personal_note` existed is converted on read; the personal line falls back to the
    /// catalog's why-line.
    @Test func aManifestStoredBeforeTheDocumentShapeIsConvertedOnRead() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let stored = try #require(try journey.store.manifest(dog: "miso"))
        var old = try #require(stored.manifest.objectValue)
        for key in ["dog_id", "age_range", "recommended_block_id"] { old[key] = nil }
        old["branches"] = .array(
            (old["branches"]?.arrayValue ?? []).map { branch in
                var branch = branch.objectValue ?? [:]
                branch["blocks"] = .array(
                    (branch["blocks"]?.arrayValue ?? []).map { block in
                        var block = block.objectValue ?? [:]
                        block["personal_note"] = nil
                        return .object(block)
                    })
                return .object(branch)
            })
        try journey.store.connection.run(
            "UPDATE manifests SET manifest = ? WHERE dog_id = 'miso'", [.text(JSON.object(old).compactText)])
        // A fresh store on the same file: nothing of the new manifest is cached.
        let store = try SQLiteStore(path: journey.path, schema: Features.all.schema)
        let english = RequestTexts.choose(profile: nil, acceptLanguage: "en", catalog: journey.evaluator.ruleSet.texts)
        let views = JourneyViews(store: store, evaluator: journey.evaluator, now: journey.clock, texts: english)
        let manifest = try views.manifest("miso")
        #expect(manifest["dog_id"] == "miso")
        #expect(manifest["age_range"] == "4-8m", "from the dog's registration")
        #expect(manifest["recommended_block_id"] == "breed-traits", "from recommended_first")
        let breed = manifest["branches"]?[2]?["blocks"]?[0]
        #expect(breed?["id"] == "breed-traits")
        #expect(breed?["personal_note"] == "Knowing the breed's job helps you meet Miso's needs.")
        let today = try views.today("miso")
        #expect(today["recommended"]?["block_id"] == "breed-traits")
        #expect(today["recommended"]?["why"] == breed?["personal_note"])
    }

    /// Today's why-line and the preview's second line are the block's personal line from the
    /// manifest, not the catalog's generic text.
    @Test(arguments: [
        ("weight-baseline", "Weight baseline — no body-condition score in the portrait", nil as String?),
        ("impulse-control-basics", "weakest", "Самоконтроль 30 — самая слабая метрика Miso"),
        ("bond-building-games", "a mid score", "Контакт 62 — хорошая основа: Miso уже многое умеет"),
        ("daily-exercise-needs", "exercise", "Активность 54 — хорошая основа: Miso уже многое умеет"),
    ])
    func thePreviewCarriesThePersonalLine(block: String, what: String, note: String?) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let map = try journey.views.state("miso").map
        let generic = map.block(block).flatMap { map.text($0, "preview", "why") }
        let expected = note ?? generic
        let preview = try journey.views.preview("miso", block: block)
        #expect(preview["text_lines"]?.arrayValue?.count == 3)
        #expect(preview["text_lines"]?[1]?.stringValue == expected, "\(what)")
        #expect(try journey.views.block("miso", block: block)["preview"]?["text_lines"] == preview["text_lines"])
    }

    @Test func todaysWhyIsTheRecommendedBlocksPersonalLine() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        var registration = Self.registration
        registration["metrics"] = ["body_condition": 35, "bond": 62]
        journey.send("dog_registered", registration)
        let today = try journey.views.today("miso")
        #expect(today["recommended"]?["block_id"] == "weight-baseline")
        #expect(today["recommended"]?["why"] == "Телосложение 35 — самая слабая метрика Miso")
        #expect(
            try journey.views(locale: "en").today("miso")["recommended"]?["why"]
                == "Body condition 35 — Miso's weakest metric")
    }

    @Test func anUnknownBlockIsAViewError() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let error = try #require(throws: JourneyViewError.self) { try journey.views.block("miso", block: "juggling") }
        #expect(error.code == .unknownBlock)
        #expect(error.message == "Miso's journey has no block `juggling`")
    }
}
