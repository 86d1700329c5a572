import Core
import Foundation
import SQLite
import SQLiteStore
import Store
import Testing

@testable import Server

/// A store that cannot grow (a full disk, made here with SQLite's `max_page_count` on the
/// worker's own connection): `POST /v1/events` answers 503 with `Retry-After` and each event's
/// result, `/readyz` says the store refuses writes, and both recover once it has room.
@Suite struct FullStoreTests {
    @Test func aFullStoreAnswers503AndIsNotReadyUntilItHasRoom() throws {
        let harness = try ServiceHarness()
        let store = try #require(harness.service.database as? SQLiteStore)
        let pages = try #require(try store.connection.scalar("PRAGMA page_count"))
        try store.connection.execute("PRAGMA max_page_count = \(pages)")
        let big = String(repeating: "x", count: 3_000)
        let events: [JSON] = (0..<200).map { n in
            [
                "event_id": .string("full-\(n)"), "user_id": "owner-full", "type": "tap",
                "occurred_at": "2026-11-29T11:00:00Z", "payload": ["note": .string(big)],
            ]
        }
        let full = harness.send("POST", "/v1/events", json: ["events": .array(events)])
        #expect(full.status == 503, "\(full.text.prefix(300))")
        #expect(full.header("Retry-After") == "1")
        let results = full.json["results"]?.arrayValue ?? []
        #expect(results.count == 200)
        #expect(results.contains { $0["code"] == "storage_error" })
        let notReady = harness.send("GET", "/readyz")
        #expect(notReady.status == 503 && notReady.json["code"] == "store_not_writable", "\(notReady.text)")

        // Room again: the same batch is taken (what was kept is a duplicate), and it is ready.
        try store.connection.execute("PRAGMA max_page_count = 1073741823")
        let again = harness.send("POST", "/v1/events", json: ["events": .array(events)])
        #expect(again.status == 200, "\(again.text.prefix(300))")
        #expect((again.json["accepted"]?.numberValue ?? 0) + (again.json["duplicates"]?.numberValue ?? 0) == 200)
        #expect(harness.send("GET", "/readyz").status == 200)
    }
}
