import Core
import Foundation
import TestSupport
import Testing

/// The admin API that changes experiments without YAML: the list at a glance, a change or a new
/// experiment as a draft revision (refusals named by pointer), the consequences said before
/// publishing, a ramp 10% → 50%, and concluding with a winner — then activated and served.
@Suite struct ExperimentRouteTests {
    static let key = "recommendation-v2"
    static let path = "/v1/experiments/recommendation-v2"

    struct Refusal: CustomTestStringConvertible, Sendable {
        var body: JSON
        var status: Int
        var code: String
        /// pointer → code of each refused field (empty: not checked).
        var fields: [String: String]
        var testDescription: String { body.compactText }
    }

    static let refusals: [Refusal] = [
        .init(body: ["coverage": 2], status: 422, code: "invalid_request", fields: ["/coverage": "out_of_range"]),
        .init(body: ["coverage": "half"], status: 422, code: "invalid_request", fields: ["/coverage": "wrong_type"]),
        .init(body: ["weights": [0.5, 0.6]], status: 422, code: "invalid_request", fields: ["/weights": "invalid"]),
        .init(body: ["weights": [1]], status: 422, code: "invalid_request", fields: ["/weights": "invalid"]),
        .init(body: ["weights": [0.5, -0.5]], status: 422, code: "invalid_request", fields: ["/weights/1": "invalid"]),
        .init(body: ["starts_at": "tomorrow"], status: 422, code: "invalid_request", fields: ["/starts_at": "invalid"]),
        .init(
            body: ["starts_at": "2026-12-20T00:00:00Z", "ends_at": "2026-12-10T00:00:00Z"], status: 422,
            code: "invalid_request", fields: ["/ends_at": "invalid"]),
        .init(
            body: ["variation_names": ["control"]], status: 422, code: "invalid_request",
            fields: ["/variation_names": "invalid"]),
        // The former name (issue 42: `variations` are objects in the list and the report).
        .init(
            body: ["variations": ["control", "late"]], status: 422, code: "invalid_request",
            fields: ["/variations": "invalid"]),
        .init(
            body: ["hash_attribute": "dog_id"], status: 422, code: "invalid_request",
            fields: ["/hash_attribute": "invalid"]),
        .init(body: ["colour": "red"], status: 422, code: "invalid_request", fields: ["/colour": "unknown"]),
        .init(body: [:], status: 422, code: "invalid_request", fields: [:]),
        // Variations the rule that uses the experiment lacks: refused by the gates.
        .init(
            body: ["variation_names": ["control", "other"]], status: 422, code: "gates_refused",
            fields: ["/variation_names": "experiment_mismatch"]),
    ]

    @Test(arguments: refusals) func refusedChangesNameTheirField(_ refusal: Refusal) throws {
        let harness = try ServiceHarness()
        _ = try ParameterRouteTests.publishBundled(harness)
        let answer = harness.send("PUT", Self.path, json: refusal.body, admin: true)
        #expect(
            answer.status == refusal.status && answer.json["code"] == .string(refusal.code),
            "\(answer.text.prefix(600))")
        let errors = answer.json["errors"]?.arrayValue ?? []
        for (pointer, code) in refusal.fields {
            #expect(
                errors.contains {
                    ($0["pointer"] ?? $0["path"]) == .string(pointer) && $0["code"] == .string(code)
                }, "\(pointer) \(code): \(answer.text.prefix(600))")
        }
        let drafts = harness.send("GET", "/v1/rules/revisions", admin: true).json["revisions"]?.arrayValue ?? []
        #expect(drafts.count == 1, "nothing stored")
    }

    @Test func theListShowsEachExperimentAtAGlance() throws {
        let harness = try ServiceHarness()
        #expect(harness.send("GET", "/v1/experiments").status == 401, "admin only")
        let answer = harness.send("GET", "/v1/experiments", admin: true)
        #expect(answer.status == 200)
        let experiment = try #require(answer.json["experiments"]?.arrayValue?.first { $0["key"] == .string(Self.key) })
        #expect(experiment["status"] == "running" && experiment["coverage"] == 1 && experiment["winner"] == .null)
        #expect(experiment["variations"]?.arrayValue?.map { $0["name"] ?? .null } == ["control", "by-branch"])
        #expect(experiment["variations"]?[0]?["users"]?.numberValue != nil)
        #expect(experiment["sample_ratio"]?["status"]?.stringValue != nil)
        #expect(experiment["used_by"] == ["recommendation"])
        let scheduled = answer.json["experiments"]?.arrayValue?.first { $0["key"] == "onboarding-first-launch" }
        #expect(scheduled?["status"] == "running", "started on 2026-11-01")
    }

    /// Ramp 10% → 50% (the consequence said first), then conclude: each a draft; activated, served.
    @Test func rampThenConclude() throws {
        let harness = try ServiceHarness()
        let bundled = try ParameterRouteTests.publishBundled(harness)

        let ten = harness.send("PUT", Self.path, json: ["coverage": 0.1, "message": "ramp to 10%"], admin: true)
        #expect(ten.status == 201 && ten.json["kept"] == true && ten.json["active"] == false, "\(ten.text.prefix(400))")
        #expect(ten.json["draft_revision"]?["message"] == "ramp to 10%" && ten.json["file"] == "Rules/experiments.yaml")
        let tenID = try #require(ten.json["draft_revision"]?["revision"]?.stringValue)
        let diff = harness.send("GET", "/v1/rules/revisions/\(bundled)/diff/\(tenID)", admin: true).json
        let lines = diff["file_changes"]?[0]?["diff_lines"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            lines.filter { $0.hasPrefix("+") || $0.hasPrefix("-") } == ["-     coverage: 1", "+     coverage: 0.1"],
            "\(lines)")
        #expect(
            harness.send("POST", "/v1/rules/revisions/\(tenID)/activate", json: ["message": "ramp to 10%"], admin: true)
                .status == 200)

        let fifty = harness.send("PUT", Self.path, json: ["coverage": 0.5], admin: true)
        #expect(fifty.status == 201, "\(fifty.text.prefix(400))")
        let said = fifty.json["consequences"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            said == [
                "Coverage goes from 10% to 50%: the users already in the experiment keep their variation, and about 40% more of all users join, split by the weights. The bucket version stays 1, so nobody is reassigned."
            ], "\(said)")
        let reassign = harness.send("PUT", Self.path, json: ["coverage": 0.5, "reassign": true], admin: true)
        #expect(
            reassign.json["consequences"]?[0]?.stringValue?.hasPrefix("The bucket version goes from 1 to 2") == true,
            "\(reassign.text.prefix(400))")
        let fiftyID = try #require(fifty.json["draft_revision"]?["revision"]?.stringValue)
        #expect(
            harness.send(
                "POST", "/v1/rules/revisions/\(fiftyID)/activate", json: ["message": "ramp to 50%"], admin: true
            )
            .status == 200)
        // (This harness serves the revision it loaded; LiveParameterTests shows an activation served.)
        #expect(Self.experimentsFile(harness, fiftyID).contains("    coverage: 0.5\n    hash_attribute: user_id"))
        let refused = harness.send("POST", Self.path + "/conclude", json: ["winner": "nope"], admin: true)
        #expect(refused.status == 422 && refused.json["errors"]?[0]?["path"] == "/winner", "\(refused.text)")
        let concluded = harness.send("POST", Self.path + "/conclude", json: ["winner": "by-branch"], admin: true)
        #expect(concluded.status == 201, "\(concluded.text.prefix(400))")
        #expect(
            concluded.json["draft_revision"]?["message"]
                == "conclude experiment recommendation-v2: ship by-branch to everyone")
        let concludedID = try #require(concluded.json["draft_revision"]?["revision"]?.stringValue)
        let activated = harness.send(
            "POST", "/v1/rules/revisions/\(concludedID)/activate", json: ["message": "by-branch wins"], admin: true)
        #expect(activated.status == 200)
        let audit = harness.send("GET", "/v1/audit", admin: true).json["audit"]?.arrayValue ?? []
        #expect(audit.first?["message"] == "by-branch wins" && audit.first?["subject"] == .string(concludedID))
        let text = Self.experimentsFile(harness, concludedID)
        #expect(
            text.contains("    active: false\n    bucket_version: 1\n    winner: by-branch\n    metrics:"), "\(text)")
    }

    static func experimentsFile(_ harness: ServiceHarness, _ revision: String) -> String {
        harness.send("GET", "/v1/rules/revisions/\(revision)", admin: true).json["files"]?["Rules/experiments.yaml"]?
            .stringValue ?? ""
    }

    /// The former `variations` (issue 42) is refused naming `variation_names`, once: a new
    /// experiment sent with it is not told that `variation_names` is missing as well.
    @Test func theFormerVariationsIsRefusedNamingTheNewName() throws {
        let harness = try ServiceHarness()
        _ = try ParameterRouteTests.publishBundled(harness)
        let answer = harness.send(
            "PUT", "/v1/experiments/reminder-timing", json: ["variations": ["morning", "evening"]], admin: true)
        let errors = answer.json["errors"]?.arrayValue ?? []
        #expect(answer.status == 422 && errors.count == 1, "\(answer.text.prefix(600))")
        #expect(
            (errors.first?["pointer"] ?? errors.first?["path"]) == "/variations" && errors.first?["code"] == "invalid")
        #expect(errors.first?["message"] == "was renamed: send `variation_names` instead")
    }

    @Test func aNewExperimentIsAppended() throws {
        let harness = try ServiceHarness()
        let bundled = try ParameterRouteTests.publishBundled(harness)
        let created = harness.send(
            "PUT", "/v1/experiments/reminder-timing",
            json: ["variation_names": ["morning", "evening"], "coverage": 0.1, "description": "When to remind"],
            admin: true)
        #expect(created.status == 201 && created.json["created"] == true, "\(created.text.prefix(400))")
        let id = try #require(created.json["draft_revision"]?["revision"]?.stringValue)
        let files = harness.send("GET", "/v1/rules/revisions/\(id)", admin: true).json["files"]
        #expect(
            files?["Rules/experiments.yaml"]?.stringValue?.hasSuffix(
                """

                  - key: reminder-timing
                    description: "When to remind"
                    variations: [morning, evening]
                    hash_attribute: user_id
                    coverage: 0.1
                    active: false
                    bucket_version: 1

                """) == true, "\(files?["Rules/experiments.yaml"]?.stringValue?.suffix(300) ?? "")")
        _ = bundled
    }
}
