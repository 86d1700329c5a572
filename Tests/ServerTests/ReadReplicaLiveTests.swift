import Core
import Features
import Foundation
import HTTP
import RevisionStore
import Store
import StoreBackends
import TestSupport
import Testing

/// Views read from a streaming standby (`journey serve --read-url`): served by the standby once
/// it has replayed what they must show, by the primary otherwise. The primary's WAL senders are
/// paused (`scripts/postgres pause`) to hold the standby behind for as long as a step needs,
/// so that each rule is seen deciding, not raced: a user's own write shows in their next view
/// (the standby has not got it), other users' views stay on the standby, a revision activated
/// on the primary is never served over the standby's older data, and a lost standby leaves
/// the views to the primary without an error.
@Suite(.serialized, .enabled(if: ThrowawayPostgres.isInstalled, "PostgreSQL 15 is not installed (scripts/postgres)"))
struct ReadReplicaLiveTests {
    @Test func viewsReadFromTheStandbyOnlyWhenItHasWhatTheyMustShow() throws {
        let primary = try ThrowawayPostgres()
        let standby = try ThrowawayPostgres(standbyOf: primary, synchronous: false)
        let service = try LiveService(
            workers: 1, arguments: ["--db", primary.url, "--read-url", standby.url, "--access-log", "off"])
        defer { service.stop() }
        let client = service.client()
        let standbyStore = try StoreLocation(standby.url).open(schema: Features.all.schema, migrate: false)
        func views() throws -> [String: Double] { try Self.viewCounts(client) }
        func seen() -> String { "\((try? views()) ?? [:])" }
        func today(_ dog: String) throws -> Int { try client.json("GET", "/v1/dogs/\(dog)/today").0 }

        // The seeded dog's views move to the standby once it has replayed the seeding.
        try waitUntil("a view of q-123 served by the standby (\(seen()))", timeout: .seconds(20)) {
            #expect(try today("q-123") == 200)
            return try views()["standby", default: 0] > 0
        }

        // Held behind: a new dog shows at once to its owner (from the primary; the standby has
        // not got it), and the other user's views stay on the standby.
        try primary.pauseReplication(true)
        var paused = true
        defer { if paused { try? primary.pauseReplication(false) } }
        let registration: JSON = [
            "dog_id": "rr-1", "user_id": "rr-owner", "name": "R", "age_range": "4-8m", "breed": "border_collie",
            "timezone": "UTC", "metrics": ["impulse_control": 22, "bond": 55, "body_condition": 60, "recall": 40],
        ]
        let (registered, answer) = try client.json("POST", "/v1/dogs", registration)
        try #require(registered == 201, "\(answer)")
        var before = try views()
        #expect(try today("rr-1") == 200)
        let (_, dogs) = try client.json("GET", "/v1/users/rr-owner/dogs")
        #expect(dogs["dogs"]?[0]?["links"]?["today"] == "/v1/dogs/rr-1/today", "\(dogs)")
        #expect(
            try Self.events(of: "rr-1", in: standbyStore) == 0, "the standby got the write: the test proves nothing")
        var after = try views()
        #expect(after["primary_standby_behind", default: 0] - before["primary_standby_behind", default: 0] == 2)
        #expect(try today("q-123") == 200)
        #expect(try views()["standby", default: 0] == after["standby", default: 0] + 1, "\(seen())")

        // A revision activated on the primary: once the worker serves it, no view reads the
        // standby, which has not replayed the activation.
        // (A revision other than the bundled files the worker serves, which it would not adopt.)
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        files["Rules/locales/en.yaml"] = files["Rules/locales/en.yaml"]?.replacingOccurrences(
            of: "Every day you check a habit, your streak grows.", with: "Each day counts.")
        let body: JSON = [
            "message": "read scaling",
            "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
        ]
        let (published, revisionAnswer) = try client.json("POST", "/v1/rules/revisions", body, admin: true)
        try #require(published == 201, "\(revisionAnswer.compactText.prefix(400))")
        let revision = revisionAnswer["published_revision"]?["revision"]?.stringValue ?? ""
        try waitUntil("the worker serving \(revision)", timeout: .seconds(20)) {
            let (status, rules) = try client.json("GET", "/v1/rules", admin: true)
            return status == 200 && rules["revision"]?.stringValue == revision
        }
        #expect(try Self.activations(in: standbyStore) == 0, "the standby got the activation: the test proves nothing")
        before = try views()
        for _ in 0..<6 { #expect(try today("q-123") == 200) }
        after = try views()
        #expect(after["standby", default: 0] == before["standby", default: 0], "\(before) → \(after)")
        #expect(after["primary_standby_behind", default: 0] - before["primary_standby_behind", default: 0] == 6)

        // Caught up: both users' views go back to the standby.
        try primary.pauseReplication(false)
        paused = false
        for dog in ["q-123", "rr-1"] {
            let start = try views()["standby", default: 0]
            try waitUntil("a view of \(dog) served by the standby again (\(seen()))", timeout: .seconds(20)) {
                #expect(try today(dog) == 200)
                return try views()["standby", default: 0] > start
            }
        }

        // The standby lost: views keep answering, from the primary.
        try standby.crash()
        before = try views()
        for dog in ["q-123", "rr-1", "q-123", "rr-1"] { #expect(try today(dog) == 200) }
        after = try views()
        #expect(after["primary_standby_down", default: 0] > before["primary_standby_down", default: 0], "\(after)")
        #expect(after["standby", default: 0] == before["standby", default: 0], "\(before) → \(after)")
        #expect(service.log.contains("views read from the primary until it answers"), "\(service.log)")
    }

    /// `journey_view_reads_total` by source, summed over the workers (one shared counter).
    static func viewCounts(_ client: HTTPClient) throws -> [String: Double] {
        let text = try client.send("GET", "/metrics", headers: ["Authorization": "Bearer \(ServiceHarness.token)"]).text
        var counts: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("journey_view_reads_total{source=\"") {
            let rest = line.dropFirst("journey_view_reads_total{source=\"".count)
            guard let quote = rest.firstIndex(of: "\""), let value = Double(rest.split(separator: " ").last ?? "")
            else { continue }
            counts[String(rest[..<quote])] = value
        }
        return counts
    }

    static func events(of dog: String, in store: any StoreConnection) throws -> Int64 {
        try store.first("SELECT count(*) FROM events WHERE dog_id = ?", [.text(dog)]) { $0.integer(0) } ?? -1
    }

    static func activations(in store: any StoreConnection) throws -> Int64 {
        try store.first("SELECT count(*) FROM rule_activations", []) { $0.integer(0) } ?? -1
    }
}
