import Core
import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// Builds a dog's journey map at registration: the catalog of its age range, the
/// `journey.manifest` rule (branches, blocks, insight cards), the first recommended block and
/// the personal note on its weakest metric. Built once; never rebuilt.
enum ManifestBuilder {
    /// The `manifest_created` effect for `dog`, or nil when no catalog covers its age.
    static func build(for dog: DogProfile, ruleSet: RuleSet, evaluator: RuleEvaluator, now: Double) throws -> Effect? {
        guard let range = ageRange(of: dog, at: now),
            let catalog = ruleSet.documents(of: Catalog.self).first(where: { $0.fits(range) })
        else { return nil }
        let hash = catalog.hash
        let result = try evaluator.evaluate(
            JourneyRules.manifest, input: JV(["dog": dog.json, "catalog": catalog.outline]),
            options: EvaluationOptions(now: now))
        guard case .object(var manifest)? = result.value else { return nil }
        manifest["dog_id"] = .string(dog.id)
        manifest["age_range"] = .string(catalog.ageRanges.first { $0.overlaps(range) }?.text ?? range.text)
        manifest["catalog_hash"] = .string(hash)
        manifest["created_at"] = .string(Timestamp.format(now))

        let draft = StoredManifest(
            dogID: dog.id, ruleRevision: ruleSet.revision, createdAt: now, manifest: .object(manifest))
        let texts = ruleSet.texts
        let map = JourneyMap(
            dog: dog, manifest: draft,
            catalog: CatalogTexts.localized(catalog.json, texts: texts, locale: texts.defaultLocale),
            texts: RequestTexts(locale: texts.defaultLocale, source: "default", catalog: texts))
        let state = try JourneyState(map: map, steps: [], evaluator: evaluator, now: now)
        manifest["recommended_first"] = state.recommended.map(JSON.string) ?? .null
        manifest["recommended_block_id"] = manifest["recommended_first"]

        // The cards as registered: their texts kept as keys, written in the reader's locale
        // (the answer to the registration, a view), with the default locale's as `default`.
        var insights = map.insights.map { keptCard($0, dog: dog) }
        if let first = state.recommended.flatMap(map.block) {
            // Its label is kept as a key, written in the reader's locale when shown.
            var card: JSONObject = [
                "metric": .null, "label": DeferredText.json(recommendedFirstKey), "block_id": .string(first.id),
            ]
            card["text"] = map.firstBlockLine(first)
            insights.append(.object(card))
        }
        manifest["insights"] = .array(insights)

        var notes: [JSON] = []
        if ruleSet.rule(JourneyRules.weakestMetricNote) != nil, !dog.metrics.isEmpty,
            let note = try? evaluator.evaluate(JourneyRules.weakestMetricNote, input: JV(["dog": dog.json])).value
        {
            notes.append(note)
        }
        manifest["notes"] = .array(notes)

        let stored = StoredManifest(
            dogID: dog.id, ruleRevision: ruleSet.revision, createdAt: now, manifest: .object(manifest))
        return .manifestCreated(stored, catalogHash: hash, catalogText: catalog.text)
    }

    /// A metric's insight card as kept: its `label` and `text` as the keys of the catalog's
    /// locale texts (`journey.metric.<metric>.label`, `.bands.<band>` with the dog's name and
    /// score), with `card`'s texts (the default locale's) where no locale has the key.
    static func keptCard(_ card: JSON, dog: DogProfile) -> JSON {
        guard case .object(var object) = card, let metric = object["metric"]?.stringValue else { return card }
        object["label"] = DeferredText.json(
            CatalogTexts.metricKey(metric, "label"), default: object["label"]?.stringValue ?? metric)
        if let band = object["band"]?.stringValue, let value = object["value"], value.numberValue != nil {
            object["text"] = DeferredText.json(
                CatalogTexts.metricKey(metric, "bands.\(band)"), ["name": .string(dog.name), "value": value],
                default: object["text"]?.stringValue ?? "")
        }
        return .object(object)
    }

    /// The key of the insight card that names the first block: «С чего начать».
    static let recommendedFirstKey = "journey.insight.recommended_first"
    /// Its text: the block's title and why it matters for this dog.
    static let recommendedFirstTextKey = "journey.insight.recommended_first_text"

    /// The dog's age range: as registered, or from its birth date at `now` (in months).
    static func ageRange(of dog: DogProfile, at now: Double) -> AgeRange? {
        if let text = dog.ageRange { return AgeRange(text) }
        guard let birth = dog.birthDate.flatMap({ Timestamp.parse($0 + "T00:00:00Z") }) else { return nil }
        let months = Int((now - birth) / (30.4375 * 86_400))
        return AgeRange(months: max(months, 0))
    }
}
