import Core
import Features
import Foundation
import HTTP
import RevisionStore
import Revisions
import SQLiteStore
import Store
import Synchronization
import TestSupport
import Testing

/// Two `journey serve` processes on one store: a revision published through one is served by
/// both, and so is a rollback. Prints how long each took to be served by every worker, from
/// the answer of the publish or activation (no timing is asserted: these machines are noisy).
@Suite(.serialized) struct LiveRevisionTests {
    @Test func bothProcessesFollowPublishAndRollback() throws {
        let first = try LiveService(workers: 1, seed: false)
        let database = first.folder + "/journey.sqlite"
        let second = try LiveService(workers: 1, arguments: ["--db", database], seed: false)
        let clients = [first.client(), second.client()]

        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        var edited = bundled.files
        let flow = "Rules/locales/en.yaml"  // the streaks page's tooltip
        edited[flow] = edited[flow]?.replacingOccurrences(
            of: "Every day you check a habit, your streak grows.", with: "Each day counts.")
        let revisions = [bundled.revision, try RevisionFiles(edited).revision]
        #expect(revisions[0] != revisions[1])

        var latencies: [Double] = []
        /// Waits until both processes (one worker each) serve `revision`; the seconds it took.
        func served(_ revision: String, since start: Date) throws -> Double {
            var seen: Set<String> = []
            try waitUntil("both processes serving \(revision) (served by \(seen.sorted()) so far)") {
                for (index, client) in clients.enumerated() {
                    let (status, body) = try client.json("GET", "/v1/rules", admin: true)
                    if status == 200, body["revision"]?.stringValue == revision {
                        seen.insert("\(index)/\(body["worker"]?.stringValue ?? "")")
                    }
                }
                return seen.count == 2
            }
            return Date().timeIntervalSince(start)
        }

        // Publish the bundled files, then the edit, through the first process.
        for (files, message) in [(bundled.files, "the bundled rules"), (edited, "shorter tooltip")] {
            let body: JSON = [
                "message": .string(message),
                "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
            ]
            let (status, answer) = try clients[0].json("POST", "/v1/rules/revisions", body, admin: true)
            try #require(status == 201, "\(answer.compactText.prefix(400))")
            let start = Date()
            latencies.append(try served(answer["published_revision"]?["revision"]?.stringValue ?? "", since: start))
        }
        // Roll back and forth through the second process.
        for round in 0..<4 {
            let target = revisions[round % 2]
            let (status, answer) = try clients[1].json(
                "POST", "/v1/rules/revisions/\(target.prefix(12))/activate", ["message": .string("round \(round)")],
                admin: true)
            try #require(status == 200, "\(answer.compactText.prefix(400))")
            let start = Date()
            latencies.append(try served(target, since: start))
        }
        let (_, audit) = try clients[0].json("GET", "/v1/audit", admin: true)
        #expect(audit["audit"]?.arrayValue?.count == 6)
        let sorted = latencies.sorted()
        print(
            "LiveRevisionTests: served by both processes after the answer, seconds: "
                + sorted.map { String(format: "%.3f", $0) }.joined(separator: " ")
                + String(format: " (median %.3f, max %.3f)", sorted[sorted.count / 2], sorted.last ?? 0))
    }
}

/// A request in flight when another process activates a revision finishes on the revision it
/// started with. Batches of events go to one process back to back while a revision is
/// activated through another; every event keeps the revision that handled it, so each batch
/// must show exactly one: the old one for every batch sent before the activation, the new
/// one for every batch sent once the process serves it.
@Suite(.serialized) struct InFlightRevisionTests {
    struct Batch: Sendable {
        var user: String
        var sent: Date
        var answered: Date
        var status: Int
    }

    @Test func aBatchInFlightFinishesOnTheRevisionItStartedWith() throws {
        let first = try LiveService(workers: 1, seed: false)
        let database = first.folder + "/journey.sqlite"
        let second = try LiveService(workers: 1, arguments: ["--db", database], seed: false)
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        var edited = bundled.files
        let rule = "Rules/events/reminders.yaml"
        edited[rule] = edited[rule]?.replacingOccurrences(of: "again in 14 days.", with: "again in two weeks.")
        try #require(edited[rule] != bundled.files[rule], "the edit must change the rule file")
        func send(_ method: String, _ target: String, _ body: JSON, to service: LiveService) throws -> JSON {
            let (status, answer) = try service.client().json(method, target, body, admin: true)
            try #require(status == 200 || status == 201, "\(target): \(answer.compactText.prefix(400))")
            return answer
        }
        func upload(_ files: [String: String]) throws -> String {
            let body: JSON = [
                "message": "in flight", "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
            ]
            return try send("POST", "/v1/rules/revisions", body, to: first)["published_revision"]?["revision"]?
                .stringValue ?? ""
        }
        func serves(_ revision: String) throws {
            try waitUntil("the first process serving \(revision)") {
                try first.client().json("GET", "/v1/rules", admin: true).1["revision"]?.stringValue == revision
            }
        }
        // Both revisions are stored; the old one is served.
        let old = try upload(bundled.files)
        let new = try upload(edited)
        try #require(new != old)
        _ = try send("POST", "/v1/rules/revisions/\(old)/activate", ["message": "back"], to: first)
        try serves(old)

        // Batches of 1,000 events, one after another on one connection, each a user of its
        // own: a dog, then weights (each makes a record, a reminder and analytics). A short pause
        // between batches lets the test's own requests reach the worker (it answers one request
        // at a time); the sender stops when told, or after 1,000 batches.
        let occurredAt = Timestamp.format(Date().timeIntervalSince1970 - 60)
        let registration: JSON = [
            "event_id": "e-0", "user_id": "USER", "type": "dog_registered", "dog_id": "DOG",
            "occurred_at": .string(occurredAt),
            "payload": ["name": "Q", "age_range": "4-8m", "timezone": "Europe/Berlin"],
        ]
        let weights: [JSON] = (1..<1000).map { n in
            [
                "event_id": .string("e-\(n)"), "user_id": "USER", "type": "weight_saved", "dog_id": "DOG",
                "occurred_at": .string(occurredAt), "payload": ["kg": .number(10 + Double(n % 7))],
            ]
        }
        let template = JSON.object(["events": .array([registration] + weights)]).compactText
        @Sendable func body(_ index: Int) -> (user: String, body: [UInt8]) {
            let user = "in-flight-\(index)"
            let text = template.replacingOccurrences(of: "\"USER\"", with: "\"\(user)\"")
                .replacingOccurrences(of: "\"DOG\"", with: "\"dog-\(index)\"")
            return (user, Array(text.utf8))
        }
        let batches = Mutex<[Batch]>([])
        let sending = Atomic<Int>(-1)
        let stop = Atomic<Bool>(false)
        let port = first.port
        let sender = Thread {
            let client = HTTPClient(port: port, timeoutSeconds: 60)
            for index in 0..<1000 where !stop.load(ordering: .relaxed) {
                let batch = body(index)
                let sent = Date()
                sending.store(index, ordering: .releasing)
                let status =
                    (try? client.send(
                        "POST", "/v1/events", headers: ["Content-Type": "application/json"], body: batch.body,
                        retry: false
                    ).status) ?? 0
                batches.withLock { $0.append(Batch(user: batch.user, sent: sent, answered: Date(), status: status)) }
                // The one worker answers one request at a time: a gap lets the test's own
                // requests (is the revision served yet?) reach it between two batches.
                letTimePass(.milliseconds(20), for: "the test's requests to reach the worker")
            }
        }
        sender.start()
        func stopSending() throws {
            stop.store(true, ordering: .relaxed)
            try waitUntil("the end of the sender thread") { sender.isFinished }
        }
        defer { try? stopSending() }
        // Four times, just after a batch was sent: switch the revision through the other process,
        // wait until the first process serves it, and let two more batches go.
        var served: [(revision: String, at: Date)] = [(old, Date.distantPast)]
        for round in 0..<4 {
            let revision = round % 2 == 0 ? new : old
            let target = sending.load(ordering: .acquiring) + 1
            try waitUntil("batch \(target) sent") { sending.load(ordering: .acquiring) >= target }
            _ = try send("POST", "/v1/rules/revisions/\(revision)/activate", ["message": "now"], to: second)
            try serves(revision)
            served.append((revision, Date()))
            let count = batches.withLock { $0.count }
            try waitUntil("two more batches answered after round \(round)") {
                batches.withLock { $0.count } >= count + 2
            }
        }
        try stopSending()

        let store = try SQLiteStore(path: database, schema: Features.all.schema)
        // When each switch was committed (the store's clock is this machine's).
        let committed = try store.rows("SELECT revision, activated_at FROM rule_activations ORDER BY id") {
            (revision: $0.text(0) ?? "", at: Date(timeIntervalSince1970: $0.real(1)))
        }.suffix(4)
        try #require(committed.map(\.revision) == [new, old, new, old])
        var straddling = 0
        let done = batches.withLock { $0 }
        for batch in done {
            try #require(batch.status == 200, "batch \(batch.user) answered \(batch.status)")
            let accepted = try store.first("SELECT count(*) FROM events WHERE user_id = ?", [.text(batch.user)]) {
                $0.integer(0)
            }
            #expect(accepted == 1000, "every event of \(batch.user) was accepted")
            let revisions = try store.rows(
                "SELECT DISTINCT rule_revision FROM events WHERE user_id = ?", [.text(batch.user)]
            ) { $0.text(0) ?? "-" }
            #expect(revisions.count == 1, "\(batch.user) was handled by more than one revision: \(revisions)")
            // The last switch committed before the batch was sent, and whether it was served yet.
            let k = committed.filter { $0.at < batch.sent }.count
            let allowed =
                batch.sent > served[k].at ? [served[k].revision] : [served[k - 1].revision, served[k].revision]
            #expect(allowed.contains(revisions.first ?? ""), "\(batch.user) sent after switch \(k)")
            if committed.contains(where: { batch.sent < $0.at && $0.at < batch.answered }) {
                straddling += 1
                #expect(revisions.first == served[k].revision, "\(batch.user) was in flight across a switch")
            }
        }
        #expect(straddling >= 1, "a batch was in flight when a switch was committed")
        let seconds = done.map { $0.answered.timeIntervalSince($0.sent) }.sorted()
        print(
            "InFlightRevisionTests: \(done.count) batches of 1,000 events (median \(String(format: "%.3f", seconds[seconds.count / 2])) s each), \(straddling) of 4 switches committed while a batch was in flight; each finished on the revision it started with"
        )
        _ = second
    }
}
