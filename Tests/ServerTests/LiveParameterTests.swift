import Core
import Foundation
import HTTP
import RevisionStore
import Revisions
import TestSupport
import Testing

/// A product manager's change through the admin API on a running service, no jq written: a
/// parameter's value put into a draft, previewed, activated — and the app's Today serves it.
@Suite(.serialized) struct LiveParameterTests {
    @Test func aValuePutAndActivatedIsServed() throws {
        let service = try LiveService(workers: 1)
        let client = service.client()
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        let files = JSONObject(bundled.files.map { ($0.key, JSON.string($0.value)) })
        let (published, _) = try client.json(
            "POST", "/v1/rules/revisions", ["message": "the bundled rules", "files": .object(files)], admin: true)
        try #require(published == 201)

        func served() throws -> String? {
            try client.json("GET", "/v1/rules", admin: true).1["revision"]?.stringValue
        }
        func recommended() throws -> (block: JSON?, revision: JSON?) {
            let today = try client.json("GET", "/v1/dogs/q-123/today", admin: true).1
            return (today["recommended"]?["block_id"], today["decision"]?["revision"])
        }
        try waitUntil("the bundled revision served") { try served() == bundled.revision }
        let before = try recommended()
        #expect(before.revision == .string(bundled.revision))

        let (status, draft) = try client.json(
            "PUT", "/v1/rules/params",
            ["values": ["recommendation.by_branch_prefers": "weakest_topic"], "message": "weakest topic first"],
            admin: true)
        try #require(status == 201, "\(draft.compactText.prefix(400))")
        let id = try #require(draft["draft_revision"]?["revision"]?.stringValue)
        #expect(try served() == bundled.revision, "a draft is not served")
        let (previewed, preview) = try client.json(
            "POST", "/v1/rules/revisions/\(id)/preview", ["days": 7], admin: true)
        #expect(previewed == 200 && preview["candidate"] == .string(id), "\(preview.compactText.prefix(300))")

        let (activated, _) = try client.json(
            "POST", "/v1/rules/revisions/\(id)/activate", ["message": "by-branch: weakest topic first"], admin: true)
        try #require(activated == 200)
        let start = Date()
        try waitUntil("revision \(id) served") { try served() == id }
        print(
            "LiveParameterTests: served \(String(format: "%.3f", Date().timeIntervalSince(start))) s after the activation"
        )
        let after = try recommended()
        #expect(after.revision == .string(id))
        #expect(after.block != before.block, "Q's owner is in by-branch: the weakest topic first changes Q's Today")
        #expect(after.block == "bond-building-games", "Q's weakest topic in the store is bond")
    }
}
