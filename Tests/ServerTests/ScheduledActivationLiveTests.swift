import Core
import Foundation
import HTTP
import RevisionStore
import TestSupport
import Testing

/// A revision scheduled through one instance goes live on every instance sharing the store
/// within a second of its time (never before it): two `journey serve` processes on one
/// PostgreSQL database, and on one SQLite file.
@Suite(.serialized) struct ScheduledActivationLiveTests {
    /// How late an instance may serve a scheduled revision: the promise (1 s). The measure
    /// adds what the answer that saw the old revision took (milliseconds on a quiet machine).
    static let promise = 1.0

    @Test(arguments: ["postgres", "sqlite"])
    func everyInstanceSwitchesWithinASecondOfTheTime(backend: String) throws {
        if backend == "postgres", TestStore.postgresURL == nil { return }  // no PostgreSQL server here
        let server = backend == "postgres" ? try ThrowawayPostgres() : nil
        let folder = try TemporaryDirectory()
        let instances = Instances(count: 2, url: server?.url ?? folder.file("journey.sqlite"))
        try instances.startAll()
        defer { instances.stopAll() }

        let base = try instances.publishAndWaitUntilServed(comment: "the base", count: 2)
        #expect(!base.revision.isEmpty)
        let scheduled = try instances.keep(comment: "scheduled for later")
        // Ten seconds ahead: time for every instance to load and test it before its time.
        let due = (Date().timeIntervalSince1970 + 10).rounded(.up)
        let (status, answer) = try instances.admin(
            1, "POST", "/v1/rules/revisions/\(scheduled)/schedule",
            ["at": .string(Timestamp.format(due)), "message": "at the time"])
        #expect(status == 200, "\(answer.compactText.prefix(300))")

        var served: Set<Int> = []
        var early: [String] = []
        // Per instance, the last answer after its time that still had the old revision: the
        // instance was late by at least the moment that request was sent. A loaded machine
        // slows this test's own requests too, so the measure allows what one answer took.
        var lastOld: [Int: (sent: Double, took: Double)] = [:]
        try waitUntil("both instances serve the scheduled revision (so far \(served))", timeout: .seconds(120)) {
            for index in 0..<2 where !served.contains(index) {
                // Both workers of an instance: four answers in a row with the revision.
                var all = true
                for _ in 0..<4 {
                    let sent = Date().timeIntervalSince1970
                    let revision = try instances.admin(index, "GET", "/v1/rules").1["revision"]
                    let received = Date().timeIntervalSince1970
                    if revision == .string(scheduled) {
                        if received < due - 0.01 { early.append("instance \(index) at \(received - due) s") }
                    } else {
                        all = false
                        if sent > due { lastOld[index] = (sent, received - sent) }
                    }
                }
                if all { served.insert(index) }
            }
            return served.count == 2
        }
        #expect(early.isEmpty, "served before its time: \(early)")
        for (index, old) in lastOld.sorted(by: { $0.key < $1.key }) {
            #expect(
                old.sent - due <= Self.promise + old.took,
                "instance \(index) still served the old revision \(old.sent - due) s after its time (an answer took \(old.took) s)"
            )
        }
        let audit = try instances.admin(0, "GET", "/v1/audit").1["audit"]?.arrayValue ?? []
        let activations = audit.filter { $0["operation"] == "scheduled_activate" }
        #expect(activations.count == 1, "one instance takes the schedule: \(activations.count)")
        #expect(try instances.admin(0, "GET", "/v1/rules/schedules").1["schedules"] == .array([]))
    }
}

extension Instances {
    /// An admin call to instance `index` (a publish compiles every rule: 120 s under load).
    func admin(_ index: Int, _ method: String, _ path: String, _ body: JSON? = nil) throws -> (Int, JSON) {
        guard let port = port(index) else { throw LiveServiceError("instance \(index) is not running") }
        return try HTTPClient(port: port, timeoutSeconds: 120).json(method, path, body, admin: true)
    }

    /// The bundled files with a comment added: the same behaviour, another revision.
    static func files(comment: String) throws -> JSON {
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        let rule = "Rules/events/reminders.yaml"
        files[rule] = (files[rule] ?? "") + "\n# \(comment)\n"
        return .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) }))
    }

    /// Keeps (does not activate) the bundled files with `comment`; its id.
    func keep(comment: String) throws -> String {
        let (status, answer) = try admin(
            0, "POST", "/v1/rules/revisions",
            ["message": .string(comment), "files": try Self.files(comment: comment), "activate": false])
        guard status == 201, let id = answer["published_revision"]?["revision"]?.stringValue else {
            throw LiveServiceError("keeping a revision: \(status) \(answer.compactText.prefix(300))")
        }
        return id
    }

    /// Publishes the bundled files with `comment` through instance 0; waits until the first
    /// `count` instances serve it.
    func publishAndWaitUntilServed(comment: String, count: Int) throws -> (revision: String, seconds: Double) {
        let (status, answer) = try admin(
            0, "POST", "/v1/rules/revisions", ["message": .string(comment), "files": try Self.files(comment: comment)])
        guard status == 201, let revision = answer["published_revision"]?["revision"]?.stringValue else {
            throw LiveServiceError("publishing: \(status) \(answer.compactText.prefix(300))")
        }
        let start = Date()
        try waitUntil("every instance serves \(revision.prefix(12))") {
            try (0..<count).allSatisfy { index in
                try (0..<4).allSatisfy { _ in try admin(index, "GET", "/v1/rules").1["revision"] == .string(revision) }
            }
        }
        return (revision, Date().timeIntervalSince(start))
    }
}
