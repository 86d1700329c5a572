import Core
import Foundation
import RevisionStore
import Revisions
import TestSupport
import Testing

/// Keeping a draft as a revision without activating it (`activate: false`), as the console does
/// to preview and diff a draft before publishing.
@Suite struct KeptDraftRouteTests {
    /// The by-branch variant picks the other end (`max_by`), and its tests say what it picks then.
    static let maxByEdits = [
        ("| min_by([-($progress", "| max_by([-($progress"),
        ("variant: by-branch\n    expect: growth-check", "variant: by-branch\n    expect: daily-exercise-needs"),
        (
            "{by_branch_prefers: weakest_topic}\n    expect: impulse-control-basics",
            "{by_branch_prefers: weakest_topic}\n    expect: enrichment-feeding"
        ),
        (
            "by_branch_min_progress: 4, by_branch_start: lifestyle}\n    expect: enrichment-feeding",
            "by_branch_min_progress: 4, by_branch_start: lifestyle}\n    expect: socialization-plan"
        ),
        (
            "{by_branch_prefers: most_progress, by_branch_start: lifestyle}\n    expect: enrichment-feeding",
            "{by_branch_prefers: most_progress, by_branch_start: lifestyle}\n    expect: impulse-control-basics"
        ),
    ]

    /// `activate: false` keeps a draft (gates run) without serving it: it can be previewed and
    /// diffed, then published or activated.
    @Test func aDraftIsKeptWithoutActivatingIt() throws {
        let harness = try ServiceHarness()
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        let first = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "bundled", "files": RevisionRouteTests.filesJSON(bundled.files)],
            admin: true)
        #expect(first.status == 201)
        let path = "Rules/journey/recommendation.yaml"
        let edited = Self.maxByEdits.reduce(bundled.files[path] ?? "") {
            $0.replacingOccurrences(of: $1.0, with: $1.1)
        }
        #expect(edited != bundled.files[path])
        let draft: JSON = [
            "message": "try max_by", "base": "active", "files": [path: .string(edited)], "activate": false,
        ]
        let kept = harness.send("POST", "/v1/rules/revisions", json: draft, admin: true)
        #expect(kept.status == 201 && kept.json["activated"] == false, "\(kept.text.prefix(300))")
        let id = kept.json["published_revision"]?["revision"]?.stringValue ?? ""
        #expect(id != bundled.revision && kept.json["gates"]?["passed"] == true)
        let list = harness.send("GET", "/v1/rules/revisions", admin: true).json
        #expect(list["active_revision_id"]?.stringValue == bundled.revision, "still the bundled rules")
        #expect(list["revisions"]?.arrayValue?.contains { $0["revision"]?.stringValue == id } == true)
        #expect(harness.send("GET", "/v1/audit", admin: true).json["audit"]?[0]?["operation"] == "keep")

        let again = harness.send("POST", "/v1/rules/revisions", json: draft, admin: true)
        #expect(again.status == 200 && again.json["activated"] == false, "kept already")
        let preview = harness.send("POST", "/v1/rules/revisions/\(id)/preview", json: [:], admin: true)
        #expect(preview.status == 200 && preview.json["candidate"]?.stringValue == id, "\(preview.text.prefix(300))")
        let diff = harness.send("GET", "/v1/rules/revisions/\(bundled.revision)/diff/\(id)", admin: true)
        #expect(diff.json["file_changes"]?[0]?["path"]?.stringValue == path)

        var broken = draft
        if case .object(var object) = broken {
            object["files"] = [path: "rule: [oops"]
            broken = .object(object)
        }
        let refused = harness.send("POST", "/v1/rules/revisions", json: broken, admin: true)
        #expect(refused.status == 422 && refused.json["code"] == "gates_refused", "the gates still run")

        let published = harness.send(
            "POST", "/v1/rules/revisions",
            json: ["message": "max_by", "base": "active", "files": [path: .string(edited)]], admin: true)
        #expect(published.status == 201 && published.json["activated"] == true)
        #expect(harness.send("GET", "/v1/rules/revisions", admin: true).json["active_revision_id"]?.stringValue == id)
    }
}
