import Core
import Foundation
import RevisionStore
import Revisions
import TestSupport
import Testing

/// The admin API of rule parameters through the router: read them, put new values into a
/// draft revision (refused values named by their JSON pointer), then the revisions' own
/// preview, diff and activation — and the app serves the new value.
@Suite struct ParameterRouteTests {
    static let prefers = "recommendation.by_branch_prefers"

    /// Publishes the bundled rules; returns their revision.
    static func publishBundled(_ harness: ServiceHarness) throws -> String {
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        let published = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "the bundled rules", "files": RevisionRouteTests.filesJSON(bundled.files)], admin: true)
        try #require(published.status == 201, "\(published.text.prefix(300))")
        return bundled.revision
    }

    @Test func readEveryParameterWithItsDeclaration() throws {
        let harness = try ServiceHarness()
        #expect(harness.send("GET", "/v1/rules/params").status == 401, "admin only")
        let answer = harness.send("GET", "/v1/rules/params", admin: true)
        #expect(answer.status == 200)
        #expect(answer.json["revision"]?.stringValue == harness.service.ruleSet.revision)
        #expect(answer.json["values_file"] == "Rules/params.yaml")
        let parameter = try #require(
            answer.json["parameters"]?.arrayValue?.first { $0["name"] == .string(Self.prefers) })
        #expect(parameter["type"] == "enum" && parameter["choices"] == ["most_progress", "weakest_topic"])
        #expect(parameter["value"] == "most_progress" && parameter["default"] == "most_progress")
        #expect(parameter["is_default"] == true && parameter["value_at"] == .null)
        #expect(parameter["declared_at"]?["file"] == "Rules/journey/recommendation.yaml")
        #expect(parameter["declared_at"]?["line"]?.numberValue ?? 0 > 1)
        #expect(parameter["description"]?.stringValue?.hasPrefix("By-branch variant") == true)
        let start = answer.json["parameters"]?.arrayValue?.first { $0["name"] == "recommendation.by_branch_start" }
        #expect(start?["choices"] == ["health", "mind", "lifestyle"] && start?["value"] == "health")
        let window = answer.json["parameters"]?.arrayValue?.first { $0["name"] == "auto_complete.save_weight.window" }
        #expect(window?["value"] == "30d" && window?["jq_value"] == 2_592_000 && window?["min"] == "1d")
    }

    @Test func refusedValuesAreNamedByTheirPointer() throws {
        let harness = try ServiceHarness()
        let none = harness.send(
            "PUT", "/v1/rules/params", json: ["values": [Self.prefers: "weakest_topic"]], admin: true)
        #expect(none.status == 409 && none.json["code"] == "no_active_revision", "\(none.text)")
        _ = try Self.publishBundled(harness)

        let values: JSON = [
            "values": [
                Self.prefers: "weakest", "walk-50k.target_km": 5000, "recommendation.by_branch_strat": "mind",
                "puppy-4-8m.evening_reminder": "19:00",
            ]
        ]
        let refused = harness.send("PUT", "/v1/rules/params", json: values, admin: true)
        #expect(refused.status == 422 && refused.json["code"] == "invalid_params", "\(refused.text)")
        let errors = refused.json["errors"]?.arrayValue ?? []
        let byPointer = Dictionary(
            errors.map { ($0["pointer"]?.stringValue ?? "", $0["code"]?.stringValue ?? "") },
            uniquingKeysWith: { a, _ in a })
        #expect(
            byPointer == [
                "/values/recommendation.by_branch_prefers": "unknown_enum_value",
                "/values/walk-50k.target_km": "param_out_of_range",
                "/values/recommendation.by_branch_strat": "unknown_param",
            ], "\(refused.text)")
        #expect(
            errors.contains {
                $0["message"]?.stringValue?.contains("did you mean `recommendation.by_branch_start`?") == true
            })

        // A value of the right type that names no branch: refused by the gates (journey check), at its pointer.
        let gated = harness.send(
            "PUT", "/v1/rules/params", json: ["values": ["recommendation.by_branch_start": "helth"]], admin: true)
        #expect(gated.status == 422 && gated.json["code"] == "gates_refused", "\(gated.text.prefix(400))")
        let error = gated.json["errors"]?[0]
        #expect(error?["pointer"] == "/values/recommendation.by_branch_start" && error?["code"] == "unknown_branch")
        #expect(
            error?["file"] == "Rules/params.yaml"
                && error?["message"]?.stringValue?.contains("did you mean `health`?") == true)

        let badBody = harness.send("PUT", "/v1/rules/params", json: ["values": [:], "colour": "red"], admin: true)
        #expect(badBody.status == 422 && badBody.json["code"] == "invalid_request")
        let checked = harness.send(
            "POST", "/v1/rules/params/check", json: ["values": ["recommendation.by_branch_start": "helth"]], admin: true
        )
        #expect(checked.status == 200 && checked.json["passed"] == false)
        #expect(checked.json["diagnostics"]?[0]?["pointer"] == "/values/recommendation.by_branch_start")
    }

    /// A PM's change by values: a draft (kept, not served) whose only change is one line of
    /// Rules/params.yaml; previewed, diffed, activated; then served, and reset to the default.
    @Test func aValueChangeIsADraftRevisionLikeAnyOther() throws {
        let harness = try ServiceHarness()
        let bundled = try Self.publishBundled(harness)
        let before = harness.send("GET", "/v1/dogs/q-123/today").json["recommended"]?["block_id"]

        let put = harness.send(
            "PUT", "/v1/rules/params", json: ["values": [Self.prefers: "weakest_topic"]], admin: true)
        #expect(put.status == 201, "\(put.text.prefix(500))")
        #expect(put.json["kept"] == true && put.json["active"] == false && put.json["base"] == .string(bundled))
        #expect(put.json["changes"] == [["name": .string(Self.prefers), "from": .null, "to": "weakest_topic"]])
        #expect(put.json["draft_revision"]?["message"] == "params: recommendation.by_branch_prefers = weakest_topic")
        let draft = try #require(put.json["draft_revision"]?["revision"]?.stringValue)
        #expect(harness.send("GET", "/v1/rules/revisions", admin: true).json["active_revision_id"] == .string(bundled))
        let again = harness.send(
            "PUT", "/v1/rules/params", json: ["values": [Self.prefers: "weakest_topic"]], admin: true)
        #expect(again.status == 200 && again.json["kept"] == false, "the same values make the same revision")

        let diff = harness.send("GET", "/v1/rules/revisions/\(bundled)/diff/\(draft)", admin: true).json
        #expect(diff["file_changes"]?.arrayValue?.map { $0["path"] ?? .null } == ["Rules/params.yaml"], "\(diff)")
        let text = harness.send("GET", "/v1/rules/revisions/\(draft)", admin: true).json["files"]?["Rules/params.yaml"]
        #expect(
            text?.stringValue?.hasSuffix("values:\n  recommendation:\n    by_branch_prefers: weakest_topic\n") == true)

        let ofDraft = harness.send("GET", "/v1/rules/revisions/\(draft)/params", admin: true).json
        let parameter = ofDraft["parameters"]?.arrayValue?.first { $0["name"] == .string(Self.prefers) }
        #expect(parameter?["value"] == "weakest_topic" && parameter?["is_default"] == false)
        #expect(parameter?["value_at"]?["file"] == "Rules/params.yaml" && parameter?["value_at"]?["line"] != nil)

        let preview = harness.send("POST", "/v1/rules/revisions/\(draft)/preview", json: [:], admin: true)
        #expect(preview.status == 200 && preview.json["candidate"] == .string(draft), "\(preview.text.prefix(300))")
        let activated = harness.send(
            "POST", "/v1/rules/revisions/\(draft)/activate", json: ["message": "weakest topic first"], admin: true)
        #expect(activated.status == 200, "\(activated.text.prefix(300))")
        let audit = harness.send("GET", "/v1/audit", admin: true).json["audit"]?.arrayValue ?? []
        #expect(audit.first?["message"] == "weakest topic first" && audit.first?["subject"] == .string(draft))
        _ = before

        // Back to the default: the line goes, and the files are the bundled ones again.
        let reset = harness.send("PUT", "/v1/rules/params", json: ["values": [Self.prefers: .null]], admin: true)
        #expect(reset.status == 200 || reset.status == 201, "\(reset.text.prefix(300))")
        #expect(reset.json["draft_revision"]?["revision"] == .string(bundled), "the bundled revision again")
        #expect(reset.json["changes"] == [["name": .string(Self.prefers), "from": "weakest_topic", "to": .null]])
    }
}
