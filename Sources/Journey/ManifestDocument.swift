import Core
import FeatureKit
import Store

/// A dog's journey map in the product document's shape (`GET /v1/dogs/{dog_id}/manifest`):
/// `dog_id`, `age_range`, `recommended_block_id`, branches → blocks with `needs`, `theory`,
/// `check {type, content, fallback}`, `action {type, course_id?, auto_complete_if?}` and
/// `personal_note`, plus the overview map's coordinates and each block's minutes.
///
/// It is read from the manifest stored at registration; one stored before these fields existed
/// is converted on read (its dog, catalog and first recommendation fill them in).
enum ManifestDocument {
    static func json(_ state: JourneyState, texts: RequestTexts) -> JSON {
        let map = state.map
        let stored = map.manifest.manifest
        let catalog = stored["catalog"] ?? .null
        let recommended = stored["recommended_block_id"] ?? stored["recommended_first"] ?? .null
        let branches: [JSON] = map.branches.map { branch in
            [
                "id": .string(branch.id), "title": .string(branch.title), "order": .number(Double(branch.order)),
                "blocks": .array(branch.blocks.map { block(map, $0, order: branch.order, texts: texts) }),
            ]
        }
        var statuses = JSONObject()
        for block in map.blocks { statuses[block.id] = .string(state.status(of: block.id).rawValue) }
        return [
            "dog_id": .string(map.dog.id), "age_range": stored["age_range"] ?? .string(map.dog.ageRange ?? ""),
            "catalog": catalog, "title": title(of: catalog, stored: stored["title"], texts: texts),
            "catalog_hash": stored["catalog_hash"] ?? .null,
            "created_at": stored["created_at"] ?? .null, "recommended_block_id": recommended,
            "notes": DeferredText.rendered(stored["notes"] ?? .array([]), texts: texts), "branches": .array(branches),
            "statuses": .object(statuses),
        ]
    }

    /// The catalog's title in `texts`' locale (`journey.catalog.<catalog>.title`), else as
    /// stored at registration.
    static func title(of catalog: JSON, stored: JSON?, texts: RequestTexts) -> JSON {
        guard let id = catalog.stringValue, texts.catalog.has(CatalogTexts.catalogKey(id)) else {
            return stored ?? .null
        }
        return .string(texts(CatalogTexts.catalogKey(id)))
    }

    /// Where the block route (``BlockContent``) serves a part of `block`'s content.
    /// The one text of a hands_on check's "not near — remind me later" button, in the manifest
    /// and on the block's check alike.
    public static let laterKey = "journey.check.later"

    static func reference(_ dog: String, _ block: String, _ part: String) -> String {
        "/v1/dogs/\(RouteEvents.pathSegment(dog))/blocks/\(RouteEvents.pathSegment(block))#\(part)"
    }

    private static func block(_ map: JourneyMap, _ block: JourneyMap.Block, order: Int, texts: RequestTexts) -> JSON {
        let (x, y) = block.coordinates(branchOrder: order)
        return [
            "id": .string(block.id), "title": .string(block.title), "topic": .string(block.topic),
            "needs": .array(block.needs.map(JSON.string)), "minutes": .number(Double(block.minutes)),
            "position": .number(Double(block.position)), "x": .number(x), "y": .number(y),
            "theory_ref": .string(reference(map.dog.id, block.id, "theory")),
            "check": [
                "type": .string(block.checkType), "content_ref": .string(reference(map.dog.id, block.id, "check")),
                "fallback": fallback(map, block, texts: texts),
            ],
            "action": action(map, block),
            "personal_note": .string(map.personalLine(block)),
        ]
    }

    /// `{type, label, course_id?, auto_complete_if?}`: `auto_complete_if` names the
    /// auto-complete rule (stored as `auto_complete`).
    static func action(_ map: JourneyMap, _ block: JourneyMap.Block) -> JSON {
        var action: JSONObject = [
            "type": .string(block.actionType),
            "label": .string(map.render(block.action["label"]?.stringValue ?? block.actionType)),
        ]
        if let course = block.courseID { action["course_id"] = .string(course) }
        if let rule = block.autoCompleteRule { action["auto_complete_if"] = .string(rule) }
        return .object(action)
    }

    /// What the check offers when the dog is not at hand: a fallback check of another type
    /// (`type` is its check type, `content_ref` where the block route serves it); else a hands_on
    /// check asks for a reminder (`remind_later`, at `remind_at` in the dog's time zone), its
    /// button the one the block's check shows (``laterKey``: «Q не рядом — напомнить позже»),
    /// and the others give a tip to try instead.
    static func fallback(_ map: JourneyMap, _ block: JourneyMap.Block, texts: RequestTexts) -> JSON {
        let written = block.content["check"]?["fallback"]
        let remindsLater = block.checkType == "hands_on" && block.fallbackCheckType == nil
        let text =
            remindsLater
            ? texts(laterKey, ["name": .text(map.dog.name)]) : written?["text"]?.stringValue.map { map.render($0) }
        guard let text else { return .null }
        var fallback: JSONObject = [
            "type": .string(block.checkType == "hands_on" ? "remind_later" : "tip"), "text": .string(text),
        ]
        if let type = block.fallbackCheckType {
            fallback["type"] = .string(type)
            fallback["content_ref"] = .string(reference(map.dog.id, block.id, "fallback"))
        }
        if let time = written?["remind_at"]?.stringValue { fallback["remind_at"] = .string(time) }
        return .object(fallback)
    }
}

extension JourneyViews {
    /// The dog's journey map in the product document's shape, with the statuses of now.
    public func manifest(_ dogID: String) throws -> JSON {
        ManifestDocument.json(try state(dogID), texts: texts)
    }
}
