import Core
import Foundation
import RevisionStore
import Revisions
import TestSupport
import Testing

/// The admin API of rule revisions through the router: publish, read, check a draft, refuse,
/// diff, activate, audit.
@Suite struct RevisionRouteTests {
    static func filesJSON(_ files: [String: String]) -> JSON {
        .object(JSONObject(files.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) }))
    }

    @Test func publishReadCheckRefuseDiffActivateAudit() throws {
        let harness = try ServiceHarness()
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)

        #expect(harness.send("GET", "/v1/rules/revisions").status == 401, "admin only")
        // Before the first publish, base `active` is the folders served (a fresh install is
        // edited from the console): kept here, not activated.
        let fresh = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "draft: nothing changed", "base": "active", "files": [:], "activate": false], admin: true)
        #expect(fresh.status == 201, "\(fresh.text.prefix(300))")
        #expect(fresh.json["published_revision"]?["revision"]?.stringValue == bundled.revision)
        #expect(harness.send("GET", "/v1/rules/files", admin: true).json["source"] == "folders")

        let published = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "the bundled rules", "files": Self.filesJSON(bundled.files)],
            admin: true)
        #expect(published.status == 201, "\(published.text.prefix(500))")
        #expect(published.json["published_revision"]?["revision"]?.stringValue == bundled.revision)
        #expect(published.json["published_revision"]?["author"] == "admin")
        // The draft's message is the one it was published with.
        #expect(published.json["published_revision"]?["message"] == "the bundled rules")

        let again = harness.send(
            "POST", "/v1/rules/revisions", json: ["message": "again", "base": "active", "files": [:]], admin: true)
        #expect(again.status == 200 && again.json["activated"] == false, "\(again.text.prefix(300))")

        // A draft with a YAML error: diagnostics at file, line and column; nothing stored.
        let draft: JSON = ["base": "active", "files": ["Rules/broken.yaml": "rule: [oops"]]
        let checked = harness.send("POST", "/v1/rules/check", json: draft, admin: true)
        #expect(checked.status == 200 && checked.json["passed"] == false)
        let diagnostic = checked.json["diagnostics"]?[0]
        #expect(diagnostic?["file"] == "Rules/broken.yaml" && diagnostic?["line"] == 2, "\(checked.text.prefix(400))")
        let refused = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "broken", "base": "active", "files": draft["files"] ?? [:]],
            admin: true)
        #expect(refused.status == 422 && refused.json["code"] == "gates_refused", "\(refused.text.prefix(300))")
        #expect(refused.json["errors"]?[0]?["file"] == "Rules/broken.yaml")

        // A second revision over the first: only the changed file is sent.
        let flow = "Rules/locales/en.yaml"  // the streaks page's tooltip
        let edited = (bundled.files[flow] ?? "").replacingOccurrences(
            of: "Every day you check a habit, your streak grows.", with: "Each day counts.")
        let second = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "shorter tooltip", "base": "active", "files": [flow: .string(edited)]], admin: true)
        #expect(second.status == 201, "\(second.text.prefix(300))")
        let secondID = second.json["published_revision"]?["revision"]?.stringValue ?? ""
        #expect(second.json["published_revision"]?["parent"]?.stringValue == bundled.revision)

        let list = harness.send("GET", "/v1/rules/revisions", admin: true).json
        #expect(list["active_revision_id"]?.stringValue == secondID)
        #expect(list["revisions"]?.arrayValue?.count == 2)
        let shown = harness.send("GET", "/v1/rules/revisions/\(secondID.prefix(10))", admin: true)
        #expect(shown.json["files"]?[flow]?.stringValue == edited && shown.json["active"] == true)
        let diff = harness.send(
            "GET", "/v1/rules/revisions/\(bundled.revision.prefix(12))/diff/\(secondID.prefix(12))", admin: true)
        #expect(diff.json["file_changes"]?[0]?["path"]?.stringValue == flow, "\(diff.text.prefix(300))")

        // A tooltip decides nothing a preview compares: the first revision against the second.
        let preview = harness.send(
            "POST", "/v1/rules/revisions/\(bundled.revision.prefix(12))/preview", json: ["days": 30], admin: true)
        #expect(preview.status == 200 && preview.json["changed"] == 0, "\(preview.text.prefix(300))")
        #expect(preview.json["candidate"]?.stringValue == bundled.revision && preview.json["dog_count"] == 2)
        #expect(
            harness.send("POST", "/v1/rules/revisions/abcdef12/activate", json: ["message": "x"], admin: true).status
                == 404)
        let activated = harness.send(
            "POST", "/v1/rules/revisions/\(bundled.revision.prefix(12))/activate", json: ["message": "undo"],
            admin: true)
        #expect(
            activated.status == 200 && activated.json["active_revision"]?["revision"]?.stringValue == bundled.revision)

        let audit = harness.send("GET", "/v1/audit", admin: true).json["audit"]?.arrayValue ?? []
        #expect(
            audit.map { $0["operation"]?.stringValue ?? "" } == ["rollback", "publish", "publish", "keep"],
            "active before: a rollback")
        #expect(audit.allSatisfy { $0["actor"] == "admin" })
    }
}

/// Every dog view says which revision and rules (with their variants) it came from.
@Suite struct DecisionTests {
    @Test(arguments: ["today", "journey", "branches/health", "map", "blocks/vaccination-record/preview"])
    func aDogViewCarriesItsDecision(view: String) throws {
        let harness = try ServiceHarness()
        let response = harness.send("GET", "/v1/dogs/q-123/\(view)")
        #expect(response.status == 200, "\(response.text.prefix(300))")
        let decision = response.json["decision"]
        #expect(decision?["revision"]?.stringValue == harness.service.ruleSet.revision)
        #expect(decision?["rules"]?.arrayValue != nil)
        if view == "today" {
            let recommendation = decision?["rules"]?.arrayValue?.first { $0["rule"] == "recommendation" }
            #expect(recommendation?["experiment"] == "recommendation-v2", "\(decision?.compactText ?? "")")
            #expect(recommendation?["variant"]?.stringValue != nil)
        }
    }
}

/// `?explain=true` on a dog view: admin only, computed afresh, each evaluation in detail.
@Suite struct ExplainRouteTests {
    @Test func explainIsForAdminsAndDetailsEachEvaluation() throws {
        let harness = try ServiceHarness()
        #expect(harness.send("GET", "/v1/dogs/q-123/today?explain=true").status == 401)
        #expect(harness.send("GET", "/v1/dogs/q-123/today?explain=maybe", admin: true).status == 400)
        let plain = harness.send("GET", "/v1/dogs/q-123/today").json
        let explained = harness.send("GET", "/v1/dogs/q-123/today?explain=true", admin: true).json
        #expect(explained["recommended"] == plain["recommended"], "the same answer")
        let recommendation = explained["explanations"]?.arrayValue?.first { $0["rule"] == "recommendation" }
        #expect(recommendation?["variant"] == plain["decision"]?["rules"]?[0]?["variant"])
        #expect(recommendation?["input"]?["blocks"] != nil, "the input the engine built")
        #expect(recommendation?["outputs"]?.arrayValue?.count == 1)
    }
}

/// `GET /v1/funnels/onboarding` (admin): the funnel by flow, in total or per variant, as the CLI shows it.
@Suite struct FunnelRouteTests {
    @Test func theFunnelInTotalAndByVariant() throws {
        let harness = try ServiceHarness(seed: false)
        let lines = try String(contentsOfFile: Repository.examples + "/onboarding.jsonl", encoding: .utf8)
        let events = try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) }
        #expect(harness.send("POST", "/v1/events", json: ["events": .array(events)]).status == 200)
        #expect(harness.send("GET", "/v1/funnels/onboarding").status == 401)
        let funnels = harness.send("GET", "/v1/funnels/onboarding?flow_id=first_launch&by_variant=true", admin: true)
        #expect(funnels.status == 200, "\(funnels.text.prefix(300))")
        let variants = funnels.json["funnels"]?[0]?["variants"]?.arrayValue ?? []
        // onboarding.jsonl: two users in `pages` (one skipped the streaks page), one in `single_page`.
        #expect(variants.map { $0["variant"]?.stringValue ?? "" } == ["pages", "single_page"])
        #expect(variants.map { $0["started"] } == [2, 1])
        #expect(variants[0]["steps"]?[1]?["skipped"] == 1)
        // Without by_variant, the total: welcome_page and main_screen in both variants, the two
        // middle pages only in `pages`.
        let total = harness.send("GET", "/v1/funnels/onboarding?flow_id=first_launch", admin: true).json
        #expect(total["funnels"]?[0]?["variants"] == nil)
        #expect(total["funnels"]?[0]?["all_variants"]?["started"] == 3)
        let steps = total["funnels"]?[0]?["all_variants"]?["steps"]?.arrayValue ?? []
        #expect(
            steps.map { $0["step_id"] ?? .null } == ["welcome_page", "streaks_page", "reminders_page", "main_screen"])
        #expect(steps.map { $0["variant_names"]?.arrayValue?.count ?? 0 } == [2, 1, 1, 2])
        #expect(steps.map { $0["reached"] ?? .null } == [3, 2, 2, 3])
        #expect(harness.send("GET", "/v1/funnels/onboarding?by_variant=yes", admin: true).status == 400)
        let unknown = harness.send("GET", "/v1/funnels/onboarding?flow_id=nope", admin: true)
        #expect(unknown.status == 404 && unknown.json["code"] == "unknown_flow")
    }
}
