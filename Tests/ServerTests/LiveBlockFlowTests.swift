import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The Dog Journey through the API alone on a running `journey serve`: the manifest, the block
/// content its references point to, Today's personal line, "remind me later" cancelled by the
/// check, and the result screen of a completed block.
@Suite struct LiveBlockFlowTests {
    @Test func aBlockFromTheManifestToItsResult() throws {
        let service = try LiveService(workers: 1, seed: false)
        defer { service.stop() }
        let client = service.client()
        let registration: JSON = [
            "dog_id": "pip", "user_id": "pip-owner", "name": "Pip", "age_range": "4-8m", "timezone": "UTC",
            "metrics": ["body_condition": 20, "bond": 60, "recall": 45],
        ]
        let (registered, _) = try client.json("POST", "/v1/dogs", registration)
        #expect(registered == 201)

        // The manifest, in the document's shape; its references resolve on the block route.
        let (status, manifest) = try client.json("GET", "/v1/dogs/pip/manifest")
        #expect(status == 200, "\(manifest)")
        #expect(manifest["dog_id"] == "pip" && manifest["age_range"] == "4-8m")
        let first = try #require(manifest["branches"]?[0]?["blocks"]?[0])
        #expect(first["id"] == "weight-baseline")
        #expect(first["personal_note"] == "Телосложение 20 — самая слабая метрика Pip")
        let reference = try #require(first["theory_ref"]?.stringValue?.split(separator: "#").first)
        let (blockStatus, block) = try client.json("GET", String(reference))
        #expect(blockStatus == 200, "\(block)")
        #expect((3...5).contains(block["theory"]?.arrayValue?.count ?? 0))
        #expect(block["check"]?["content"]?["later"]?["label"] == "Pip не рядом — напомнить позже")
        #expect(block["check"]?["content"]?["outcomes"]?.arrayValue?.count == 3)

        // Today's why is the recommended block's personal line.
        let (_, today) = try client.json("GET", "/v1/dogs/pip/today")
        let recommended = try #require(today["recommended"]?["block_id"]?.stringValue)
        let blocks = (manifest["branches"]?.arrayValue ?? []).flatMap { $0["blocks"]?.arrayValue ?? [] }
        #expect(today["recommended"]?["why"] == blocks.first { $0["id"] == .string(recommended) }?["personal_note"])

        // "Remind me later", then the check done: the reminder is never due.
        _ = try client.json("POST", "/v1/dogs/pip/blocks/weight-baseline/start", [:])
        _ = try client.json("POST", "/v1/dogs/pip/blocks/weight-baseline/theory", [:])
        _ = try client.json("POST", "/v1/dogs/pip/blocks/weight-baseline/check", ["answer": ["outcome": "later"]])
        let tomorrow = Timestamp.format(Date().timeIntervalSince1970 + 2 * 86_400)
        let due = "/v1/reminders/due?before=\(tomorrow)"
        func checkLater() throws -> [JSON] {
            try client.json("GET", due).1["reminders"]?.arrayValue?.filter {
                $0["dog_id"] == "pip" && $0["kind"] == "check_later"
            } ?? []
        }
        #expect(try checkLater().count == 1)
        let (_, checked) = try client.json(
            "POST", "/v1/dogs/pip/blocks/weight-baseline/check", ["answer": ["outcome": "weighed"]])
        #expect(checked["effects"]?.arrayValue?.contains { $0["type"] == "reminders_cancelled" } == true)
        #expect(try checkLater().isEmpty)

        // The action completes the block: what changed, the block it opened, the return push.
        let (_, saved) = try client.json(
            "POST", "/v1/dogs/pip/blocks/weight-baseline/action", ["type": "weight_saved", "payload": ["kg": 7.2]])
        let done = try #require(saved["effects"]?.arrayValue?.first { $0["type"] == "block_completed" }, "\(saved)")
        let texts = (done["changed"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        #expect(texts.contains("Вес добавлен в историю Pip"), "\(texts)")
        #expect(done["next_block"] == "vaccination-record" && done["next_reason"] == "unlocked")
        #expect(done["return_reminder"]?["leads_to"] == "growth-check")
        let (_, review) = try client.json("GET", "/v1/dogs/pip/blocks/growth-check")
        #expect(review["status"] != "locked", "the return push leads to an open block")
    }
}
