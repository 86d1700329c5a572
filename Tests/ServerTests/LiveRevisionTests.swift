import Core
import Foundation
import HTTP
import Revisions
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
        let flow = "Rules/onboarding/first_launch.yaml"
        edited[flow] = edited[flow]?.replacingOccurrences(
            of: "Every day you check a habit, your streak grows.", with: "Each day counts.")
        let revisions = [bundled.revision, try RevisionFiles(edited).revision]
        #expect(revisions[0] != revisions[1])

        var latencies: [Double] = []
        /// Waits until both processes (one worker each) serve `revision`; the seconds it took.
        func served(_ revision: String, since start: Date) throws -> Double {
            var seen: Set<String> = []
            let converged = try LiveService.waitUntil(seconds: 20) {
                for (index, client) in clients.enumerated() {
                    let (status, body) = try client.json("GET", "/v1/rules", admin: true)
                    if status == 200, body["revision"]?.stringValue == revision {
                        seen.insert("\(index)/\(body["worker"]?.stringValue ?? "")")
                    }
                }
                return seen.count == 2
            }
            #expect(converged, "served by \(seen.sorted()) only")
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
            latencies.append(try served(answer["revision"]?["revision"]?.stringValue ?? "", since: start))
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
